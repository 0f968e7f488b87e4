// `sp watch --install-service`: the text of a systemd user unit (Linux) or a launchd agent (macOS)
// that runs this very `sp watch` (absolute paths of node and the binary, the same arguments), and
// writing it — only when asked (`--yes`), atomically, never over a different file without --force.
// Nothing here runs systemctl or launchctl: the enable command is printed for the user to run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileAtomic, replaceFileAtomic } from '../fs/atomic.js';
import { UserError } from '../cli/diagnostics.js';

export type ServiceKind = 'systemd' | 'launchd';

export const LAUNCHD_LABEL = 'dev.sp.watch';

export interface ServiceSpec {
  kind: ServiceKind;
  /** node, the sp-watch binary, then its arguments. */
  command: string[];
  /** Variables the service needs (SP_HOME, agent homes); only these, never the whole environment. */
  env: Record<string, string>;
  /** Where launchd writes the watch's stderr. */
  logFile: string;
}

/** Arguments, paths and values are data: a control character in one could add lines to the file. */
function checkText(value: string, what: string): void {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(value)) throw new UserError(`${what} holds a control character; not written into a service file: ${JSON.stringify(value)}`);
}

/** One ExecStart word, quoted as systemd reads it ($ and % are systemd's own expansions: doubled). */
function systemdWord(word: string): string {
  const escaped = word.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\$/g, '$$$$').replace(/%/g, '%%');
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? escaped : `"${escaped}"`;
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function serviceText(spec: ServiceSpec): string {
  spec.command.forEach((word) => checkText(word, 'an argument'));
  for (const [name, value] of Object.entries(spec.env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UserError(`not a variable name: ${JSON.stringify(name)}`);
    checkText(value, name);
  }
  checkText(spec.logFile, 'the log file');
  if (spec.kind === 'systemd') {
    const lines = [
      '[Unit]',
      'Description=sp watch: capture coding-agent sessions into the sp store',
      '',
      '[Service]',
      'Type=simple',
      `ExecStart=${spec.command.map(systemdWord).join(' ')}`,
      ...Object.entries(spec.env).map(([name, value]) => `Environment=${systemdWord(`${name}=${value}`)}`),
      'Restart=on-failure',
      'RestartSec=10',
      // SIGTERM ends the watch after its current step.
      'KillSignal=SIGTERM',
      'TimeoutStopSec=30',
      '',
      '[Install]',
      'WantedBy=default.target',
      '',
    ];
    return lines.join('\n');
  }
  const strings = (values: string[]) => values.map((v) => `    <string>${xml(v)}</string>`).join('\n');
  const env = Object.entries(spec.env)
    .map(([name, value]) => `    <key>${xml(name)}</key>\n    <string>${xml(value)}</string>`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${strings(spec.command)}
  </array>
  <key>EnvironmentVariables</key>
  <dict>
${env}
  </dict>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <true/>
  <key>StandardErrorPath</key>
  <string>${xml(spec.logFile)}</string>
</dict>
</plist>
`;
}

/** Where the service file goes under the user's home, and the command that enables it. */
export function serviceLocation(kind: ServiceKind, home: string): { path: string; enable: string } {
  if (kind === 'systemd') {
    const path = join(home, '.config', 'systemd', 'user', 'sp-watch.service');
    return { path, enable: 'systemctl --user daemon-reload && systemctl --user enable --now sp-watch.service' };
  }
  const path = join(home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
  return { path, enable: `launchctl bootstrap gui/$(id -u) ${path}` };
}

/**
 * Writes the service file: created atomically; an identical existing file is left alone
 * ('unchanged'); a different one is replaced only with `force` ('replaced'), else a UserError.
 */
export function installService(path: string, text: string, force: boolean): 'created' | 'unchanged' | 'replaced' {
  let existing: string | undefined;
  try {
    existing = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new UserError(`cannot read: ${(err as NodeJS.ErrnoException).code}`, path);
  }
  if (existing === text) return 'unchanged';
  if (existing !== undefined) {
    if (!force) throw new UserError('exists already with other contents; not overwriting it (--force replaces it)', path);
    replaceFileAtomic(path, text, 0o644);
    return 'replaced';
  }
  createFileAtomic(path, [text], 0o644);
  return 'created';
}
