// Types for scripts/db.mjs (imported by test/support/pg.ts and the bench).
export interface ClusterState {
  url: string;
  dir: string;
  port: number;
  bin: string;
  user?: string;
}
export function findPgBin(): string | undefined;
export function startCluster(): Promise<ClusterState>;
export function stopCluster(state: ClusterState): void;
