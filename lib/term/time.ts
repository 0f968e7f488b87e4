// Times as a person reads them in a listing: "just now", "12 min ago", "3 h ago", "yesterday",
// "4 days ago", then the date. Local time of day decides "yesterday"; `now` is a parameter so
// tests are fixed.

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86400;

function localDate(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

function startOfLocalDay(ms: number): number {
  const d = new Date(ms);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** `seconds` (epoch, as events carry) relative to `nowMs`; undefined or not finite gives "-". */
export function relativeTime(seconds: number | null | undefined, nowMs = Date.now()): string {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return '-';
  const ms = seconds * 1000;
  const ago = (nowMs - ms) / 1000;
  // The future (a clock ahead, a hostile timestamp) is not "ago": the date says it plainly.
  if (ago < -MINUTE) return localDate(ms);
  if (ago < 45) return 'just now';
  if (ago < HOUR) return `${Math.max(1, Math.round(ago / MINUTE))} min ago`;
  const today = startOfLocalDay(nowMs);
  if (ms >= today) return `${Math.floor(ago / HOUR)} h ago`;
  if (ms >= today - DAY * 1000) return 'yesterday';
  const days = Math.round((today - startOfLocalDay(ms)) / (DAY * 1000));
  if (days < 7) return `${days} days ago`;
  return localDate(ms);
}
