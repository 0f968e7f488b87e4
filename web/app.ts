// The viewer sp serve and sp export html show: preact components written with h() (no JSX step),
// bundled by esbuild into dist/web/app.js at build time. Served, it reads the JSON API of
// lib/serve/http.ts; exported, it reads the session from the page itself (decrypting it first with
// WebCrypto when the file is encrypted). Pages are chosen by the URL's hash, so links work offline
// and the browser's back button works. No inline styles (the CSP allows the stylesheet only).
import { h, render, type ComponentChildren, type VNode } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';

type Json = Record<string, any>;

// ---- where the data comes from -------------------------------------------------------------

const embedded = document.getElementById('sp-data');
const EXPORTED = embedded !== null;

async function api(path: string, params: Record<string, string | undefined>, init?: RequestInit): Promise<Json> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') qs.set(k, v);
  const response = await fetch(`/api/${path}${qs.size ? `?${qs}` : ''}`, { credentials: 'same-origin', ...init });
  const body = (await response.json().catch(() => ({ error: `HTTP ${response.status}` }))) as Json;
  if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
  return body;
}

/** A session key as query parameters. */
const keyParams = (key: Json): Record<string, string> => ('stored' in key ? { stored: key.stored } : { agent: key.agent, id: key.id });
const keyQuery = (key: Json) => new URLSearchParams(keyParams(key)).toString();

// ---- routing -----------------------------------------------------------------------------

function useRoute(): { page: string; params: URLSearchParams } {
  const read = () => {
    const hash = location.hash.replace(/^#/, '') || '/';
    const [path, query] = hash.split('?', 2);
    return { page: path || '/', params: new URLSearchParams(query ?? '') };
  };
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

function useApi(path: string | undefined, params: Record<string, string | undefined>): { data?: Json; error?: string; loading: boolean } {
  const [state, setState] = useState<{ data?: Json; error?: string; loading: boolean }>({ loading: true });
  const deps = JSON.stringify([path, params]);
  useEffect(() => {
    if (!path) return;
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    api(path, params).then(
      (data) => live && setState({ data, loading: false }),
      (err: Error) => live && setState({ error: err.message, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [deps]);
  return state;
}

// ---- small pieces ------------------------------------------------------------------------

const time = (ts: unknown): string => (typeof ts === 'number' && ts > 0 ? new Date(ts * 1000).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '');

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (b && typeof b.text === 'string' ? b.text : '')).filter(Boolean).join('\n');
  return '';
}

const short = (text: string, n: number) => (text.length > n ? `${text.slice(0, n)}…` : text);

function Err({ message }: { message: string }) {
  return h('p', { class: 'error', role: 'alert' }, message);
}

function Field({ id, label, children }: { id: string; label: string; children?: ComponentChildren }) {
  return h('div', { class: 'field' }, h('label', { for: id }, label), children);
}

function Diff({ text }: { text: string }) {
  return h(
    'pre',
    { class: 'diff', tabIndex: 0, 'aria-label': 'diff' },
    text.split('\n').map((line) =>
      h('span', { class: line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : line.startsWith('@@') ? 'hunk' : '' }, line + '\n'),
    ),
  );
}

function Image({ block, n }: { block: Json; n: number }) {
  const type = typeof block.media_type === 'string' && /^image\/(png|jpeg|gif|webp)$/.test(block.media_type) ? block.media_type : undefined;
  let src: string | undefined;
  if (type && typeof block.data === 'string' && /^[A-Za-z0-9+/=\s]+$/.test(block.data)) src = `data:${type};base64,${block.data}`;
  else if (!EXPORTED && type && typeof block.artifact === 'string') src = `/api/artifact?${new URLSearchParams({ ref: block.artifact, type })}`;
  if (!src) return h('p', { class: 'muted' }, `[image ${n}: ${block.media_type ?? 'unknown type'}${block.artifact ? `, ${block.artifact}` : ''} not available]`);
  return h('img', { class: 'shot', src, alt: `image ${n} (${type})` });
}

function Blocks({ content }: { content: unknown }) {
  if (typeof content === 'string') return h('div', { class: 'text' }, content);
  if (!Array.isArray(content)) return null;
  let images = 0;
  return h(
    'div',
    null,
    content.map((b: Json) => {
      if (!b || typeof b !== 'object') return null;
      if (b.type === 'text') return h('div', { class: 'text' }, String(b.text ?? ''));
      if (b.type === 'image') return h(Image, { block: b, n: ++images });
      if (b.type === 'thinking') return h('details', { class: 'thinking' }, h('summary', null, 'Thinking'), h('div', { class: 'text' }, String(b.text ?? '')));
      return null;
    }),
  );
}

function Pre({ value, label }: { value: unknown; label: string }) {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return h('pre', { tabIndex: 0, 'aria-label': label }, text ?? '');
}

// ---- the session view ----------------------------------------------------------------------

interface Item {
  seq: number;
  kind: string;
  event: Json;
  result?: Json;
}

/** Events as the page lists them: a tool result folded into its call, turns starting at each user message. */
function itemsOf(events: Json[]): Array<{ turn: number; items: Item[] }> {
  const results = new Map<string, Json>();
  for (const e of events) if (e.type === 'tool.result' && typeof e.payload?.call_id === 'string') results.set(e.payload.call_id, e);
  const calls = new Set(events.filter((e) => e.type === 'tool.call').map((e) => e.payload?.call_id));
  const turns: Array<{ turn: number; items: Item[] }> = [{ turn: 0, items: [] }];
  for (const e of events) {
    if (e.type === 'tool.result' && calls.has(e.payload?.call_id)) continue;
    if (e.type === 'message.user' && turns[turns.length - 1].items.length > 0) turns.push({ turn: turns.length, items: [] });
    turns[turns.length - 1].items.push({ seq: e.seq, kind: e.type, event: e, result: e.type === 'tool.call' ? results.get(e.payload?.call_id) : undefined });
  }
  return turns.filter((t) => t.items.length > 0);
}

function ItemView({ item }: { item: Item }) {
  const e = item.event;
  const p = e.payload ?? {};
  const id = `e-${e.seq}`;
  const seqTag = h('span', { class: 'seq' }, `#${e.seq}`);
  switch (item.kind) {
    case 'message.user':
      return h('section', { class: 'msg user', id, 'aria-label': `user message ${e.seq}` }, h('h3', null, 'User ', seqTag), h(Blocks, { content: p.content }));
    case 'message.assistant':
      return h('section', { class: 'msg assistant', id, 'aria-label': `assistant message ${e.seq}` }, h('h3', null, 'Assistant ', p.model ? h('span', { class: 'muted' }, p.model) : null, ' ', seqTag), h(Blocks, { content: p.content }));
    case 'message.thinking':
      return h('details', { class: 'thinking', id }, h('summary', null, 'Thinking ', seqTag), h('div', { class: 'text' }, String(p.text ?? textOf(p.content))));
    case 'tool.call': {
      const r = item.result?.payload;
      const error = r?.is_error === true;
      return h(
        'details',
        { class: `tool${error ? ' failed' : ''}`, id },
        h('summary', null, h('span', { class: 'toolname' }, `Tool call: ${p.name ?? 'tool'}`), ' ', h('span', { class: 'muted' }, short(JSON.stringify(p.input ?? {}), 100)), ' ', seqTag),
        h('h4', null, 'Input'),
        h(Pre, { value: p.input, label: `input of tool call ${e.seq}` }),
        h('h4', null, item.result ? `Result #${item.result.seq}${error ? ' (error)' : ''}` : 'No result'),
        item.result ? (Array.isArray(r?.content) ? h(Blocks, { content: r.content }) : h(Pre, { value: r?.content ?? r?.output ?? r, label: `result of tool call ${e.seq}` })) : null,
      );
    }
    case 'tool.result':
      return h('details', { class: 'tool', id }, h('summary', null, `Tool result ${p.call_id ?? ''} `, seqTag), h(Pre, { value: p.content ?? p, label: `tool result ${e.seq}` }));
    case 'file.edit':
      return h('section', { class: 'edit', id, 'aria-label': `edit of ${p.path}` }, h('h3', null, `Edit ${p.path ?? ''} `, h('span', { class: 'muted' }, `+${p.added ?? 0} −${p.removed ?? 0}`), ' ', seqTag), typeof p.diff === 'string' ? h(Diff, { text: p.diff }) : null);
    case 'command.run':
      return h('div', { class: 'cmd', id }, h('code', null, `$ ${p.cmd ?? ''}`), ' ', h('span', { class: p.exit_code ? 'bad' : 'muted' }, p.exit_code !== undefined ? `exit ${p.exit_code}` : ''), ' ', seqTag);
    case 'session.start':
      return h('div', { class: 'note', id }, `Session started ${time(e.ts)} in ${p.cwd ?? '?'}${p.model ? ` with ${p.model}` : ''} `, seqTag);
    case 'meta':
      // What an agent records besides the conversation (titles, queue operations, snapshots): folded.
      return h('details', { class: 'meta', id }, h('summary', null, h('span', { class: 'muted' }, `meta ${typeof p.key === 'string' ? p.key : ''} `), seqTag), h(Pre, { value: p, label: `meta event ${e.seq}` }));
    default:
      return h('div', { class: 'note', id }, h('span', { class: 'muted' }, `${e.type} `), short(JSON.stringify(p), 160), ' ', seqTag);
  }
}

const PAGE = 400;

function Chain({ chain }: { chain: Json }) {
  const s = chain.sessions?.[0];
  if (chain.ok) return h('p', { class: 'ok', id: 'chain' }, `Hash chain verified: ${s?.events ?? 0} events, seq ${s?.first_seq ?? 0}–${s?.last_seq ?? 0}`);
  const damage = s?.damage ?? chain.stream_damage?.[0];
  return h('p', { class: 'bad', id: 'chain', role: 'status' }, `Hash chain damaged: ${damage?.kind ?? '?'} at seq ${damage?.seq ?? '?'} — ${damage?.message ?? ''}`);
}

function BranchTree({ branches, keyQ }: { branches?: Json; keyQ: string }) {
  if (!branches) return null;
  const link = (seq: number) => h('a', { href: `#/session?${keyQ}&seq=${seq}` }, `#${seq}`);
  return h(
    'div',
    { class: 'branches' },
    h('h2', null, 'Branches'),
    h(
      'ul',
      null,
      h('li', null, 'Active branch, leaf ', link(branches.active.leaf_seq), ` (${branches.active.events} events)`),
      branches.others.map((b: Json) => h('li', null, 'Branch forking at ', b.fork_seq === undefined ? 'the root' : link(b.fork_seq), ', leaf ', link(b.leaf_seq), ` (${b.own.length} own steps)`)),
    ),
  );
}

function StoreChecks({ store }: { store?: Json }) {
  if (!store) return null;
  return h(
    'div',
    { class: 'store' },
    h('h2', null, 'Store'),
    h('p', { class: store.signature?.status === 'trusted' ? 'ok' : 'bad' }, `Signature: ${store.signature?.status ?? 'none'} — ${store.signature?.message ?? ''}`),
    store.owner ? h('p', null, `Held by ${store.owner}`) : null,
    store.problems?.length ? h('ul', { class: 'bad' }, store.problems.map((x: string) => h('li', null, x))) : null,
    h('h3', null, `Receipts (${store.receipts?.length ?? 0})`),
    h('ul', null, (store.receipts ?? []).map((r: Json) => h('li', { class: r.ok ? 'ok' : 'bad' }, `${r.id}: ${r.from ?? '?'} → ${r.to ?? '?'} at seq ${r.seq ?? '?'}, ${r.ok ? 'signature verified' : (r.problems ?? []).join('; ')}`))),
  );
}

export function SessionView({ view, keyQ }: { view: Json; keyQ?: string }) {
  const turns = useMemo(() => itemsOf(view.events ?? []), [view]);
  const total = turns.reduce((n, t) => n + t.items.length, 0);
  const [shown, setShown] = useState(PAGE);
  const target = new URLSearchParams(location.hash.split('?')[1] ?? '').get('seq');
  // A link to one event (from the compile page, the branch tree) shows everything up to it and scrolls there.
  useEffect(() => {
    if (target === null) return;
    const seq = Number(target);
    let at = 0;
    for (const t of turns) for (const it of t.items) if (it.seq <= seq) at++;
    if (at > shown) setShown(at + PAGE);
    requestAnimationFrame(() => {
      const el = document.getElementById(`e-${seq}`);
      if (el) {
        if (el.tagName === 'DETAILS') (el as HTMLDetailsElement).open = true;
        el.scrollIntoView({ block: 'center' });
        el.classList.add('target');
      }
    });
  }, [target, turns]);
  const meta = view.meta ?? {};
  let budget = shown;
  const out: VNode<any>[] = [];
  for (const t of turns) {
    if (budget <= 0) break;
    const items = t.items.slice(0, budget);
    budget -= items.length;
    out.push(h('section', { class: 'turn', 'aria-label': `turn ${t.turn}` }, h('h2', { class: 'turnhead' }, t.turn === 0 ? 'Start' : `Turn ${t.turn}`), items.map((it) => h(ItemView, { item: it, key: it.seq }))));
  }
  return h(
    'div',
    { class: 'session' },
    h('h1', null, meta.title || short(textOf(view.events?.find((e: Json) => e.type === 'message.user')?.payload?.content) || meta.native_id || 'Session', 120)),
    h(
      'dl',
      { class: 'meta' },
      [
        ['Agent', meta.agent_label || meta.agent],
        ['Session', meta.native_id],
        ['Canonical id', meta.session],
        ['Project', meta.cwd],
        ['Model', meta.model],
        ['Events', String(view.events?.length ?? 0)],
      ]
        .filter(([, v]) => v)
        .map(([k, v]) => h('div', null, h('dt', null, k), h('dd', null, v))),
    ),
    h(Chain, { chain: view.chain ?? {} }),
    keyQ && !EXPORTED
      ? h('nav', { class: 'actions', 'aria-label': 'session actions' }, h('a', { href: `#/relay?${keyQ}`, class: 'button' }, 'Relay to another agent…'), ' ', h('a', { href: `#/compile?${keyQ}`, class: 'button' }, 'Compile a handoff…'))
      : null,
    h(BranchTree, { branches: view.branches, keyQ: keyQ ?? '' }),
    h(StoreChecks, { store: view.store }),
    h('div', { class: 'events' }, out),
    shown < total ? h('button', { type: 'button', class: 'more', onClick: () => setShown(shown + PAGE * 5) }, `Show more (${total - shown} more items)`) : null,
  );
}

function SessionPage({ params }: { params: URLSearchParams }) {
  const key = params.get('stored') !== null ? { stored: params.get('stored')! } : { agent: params.get('agent') ?? '', id: params.get('id') ?? '' };
  const { data, error, loading } = useApi('session', keyParams(key));
  useEffect(() => {
    if (data) document.title = `${data.meta?.title || data.meta?.native_id || 'session'} — sp`;
  }, [data]);
  return h('main', { id: 'main', tabIndex: -1 }, h('p', null, h('a', { href: '#/' }, '← All sessions')), error ? h(Err, { message: error }) : loading && !data ? h('p', { role: 'status' }, 'Loading the session…') : data ? h(SessionView, { view: data, keyQ: keyQuery(key) }) : null);
}

// ---- the list ----------------------------------------------------------------------------

function ListPage() {
  const [agent, setAgent] = useState('');
  const [project, setProject] = useState('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [q, setQ] = useState('');
  const [words, setWords] = useState('');
  useEffect(() => {
    const t = setTimeout(() => setWords(q), 200);
    return () => clearTimeout(t);
  }, [q]);
  const day = (d: string, end: boolean) => (d ? String(Date.parse(`${d}T00:00:00Z`) / 1000 + (end ? 86_399 : 0)) : undefined);
  const { data, error, loading } = useApi('sessions', { agent, project, since: day(since, false), until: day(until, true), q: words });
  useEffect(() => {
    document.title = 'sp sessions';
  }, []);
  const sessions: Json[] = data?.sessions ?? [];
  return h(
    'main',
    { id: 'main', tabIndex: -1 },
    h('h1', null, 'Sessions'),
    h(
      'form',
      { class: 'filters', role: 'search', onSubmit: (ev: Event) => ev.preventDefault() },
      h(Field, { id: 'f-q', label: 'Search' }, h('input', { id: 'f-q', type: 'search', value: q, placeholder: 'words in titles, prompts, the store', onInput: (ev: Event) => setQ((ev.target as HTMLInputElement).value) })),
      h(Field, { id: 'f-agent', label: 'Agent' }, h('select', { id: 'f-agent', value: agent, onChange: (ev: Event) => setAgent((ev.target as HTMLSelectElement).value) }, h('option', { value: '' }, 'all agents'), (data?.agents ?? []).map((a: string) => h('option', { value: a }, a)))),
      h(Field, { id: 'f-project', label: 'Project' }, h('select', { id: 'f-project', value: project, onChange: (ev: Event) => setProject((ev.target as HTMLSelectElement).value) }, h('option', { value: '' }, 'all projects'), (data?.projects ?? []).map((a: string) => h('option', { value: a }, a)))),
      h(Field, { id: 'f-since', label: 'From' }, h('input', { id: 'f-since', type: 'date', value: since, onInput: (ev: Event) => setSince((ev.target as HTMLInputElement).value) })),
      h(Field, { id: 'f-until', label: 'To' }, h('input', { id: 'f-until', type: 'date', value: until, onInput: (ev: Event) => setUntil((ev.target as HTMLInputElement).value) })),
    ),
    error ? h(Err, { message: error }) : null,
    h('p', { role: 'status', id: 'count' }, loading && !data ? 'Loading…' : `${sessions.length} of ${data?.total ?? 0} sessions`),
    h(
      'table',
      { class: 'list' },
      h('caption', { class: 'sr-only' }, 'Sessions, newest first'),
      h('thead', null, h('tr', null, ['Agent', 'Session', 'Project', 'Last active', 'Size'].map((c) => h('th', { scope: 'col' }, c)))),
      h(
        'tbody',
        null,
        sessions.map((s) =>
          h(
            'tr',
            { key: `${s.source}:${s.agent}:${s.id}` },
            h('td', null, s.agent_label, s.source === 'store' ? h('span', { class: 'tag' }, 'store') : null),
            h('td', null, h('a', { href: `#/session?${keyQuery(s.key)}`, class: 'open' }, short(s.title || s.first_prompt || s.id, 140))),
            h('td', null, s.project ?? ''),
            h('td', null, time(s.last_ts)),
            h('td', null, s.events !== undefined ? `${s.events} events` : `${s.messages ?? 0} msgs, ${s.tool_calls ?? 0} tools`),
          ),
        ),
      ),
    ),
    data?.hits?.length
      ? h(
          'section',
          { 'aria-label': 'store search hits' },
          h('h2', null, `In the store's full text (${data.hits.length})`),
          h('ul', { class: 'hits' }, data.hits.map((hit: Json) => h('li', null, h('a', { href: `#/session?stored=${encodeURIComponent(hit.session)}&seq=${hit.seq}` }, `${hit.title ?? hit.session} #${hit.seq} (${hit.type})`), ': ', hit.snippet))),
        )
      : null,
  );
}

// ---- relay -------------------------------------------------------------------------------

function ActionBadge({ action }: { action: string }) {
  return h('span', { class: `badge ${action}` }, action);
}

function RelayPage({ params }: { params: URLSearchParams }) {
  const key = params.get('stored') !== null ? { stored: params.get('stored')! } : { agent: params.get('agent') ?? '', id: params.get('id') ?? '' };
  const session = useApi('session', keyParams(key));
  const targets: Json[] = session.data?.targets ?? [];
  const [target, setTarget] = useState(params.get('target') ?? '');
  const [mode, setMode] = useState('history');
  const [cwd, setCwd] = useState('');
  const [mkcwd, setMkcwd] = useState(false);
  const [preview, setPreview] = useState<{ data?: Json; error?: string; loading?: boolean }>({});
  const [confirming, setConfirming] = useState(false);
  const [written, setWritten] = useState<{ data?: Json; error?: string; loading?: boolean }>({});
  const confirmRef = useRef<HTMLButtonElement>(null);
  const chosen = target || targets.find((t) => !t.experimental && t.id !== session.data?.meta?.agent)?.id || '';
  const args = { ...keyParams(key), target: chosen, mode, cwd };
  const run = () => {
    setPreview({ loading: true });
    setConfirming(false);
    setWritten({});
    api('relay', args).then((data) => setPreview({ data }), (err: Error) => setPreview({ error: err.message }));
  };
  const write = () => {
    setWritten({ loading: true });
    setConfirming(false);
    api('relay', {}, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...args, mkcwd }) }).then(
      (data) => setWritten({ data }),
      (err: Error) => setWritten({ error: err.message }),
    );
  };
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
  }, [confirming]);
  const events: Json[] = session.data?.events ?? [];
  const rows = new Map<number, Json>();
  for (const r of preview.data?.rows ?? []) rows.set(r.seq, r);
  return h(
    'main',
    { id: 'main', tabIndex: -1 },
    h('p', null, h('a', { href: `#/session?${keyQuery(key)}` }, '← Back to the session')),
    h('h1', null, 'Relay to another agent'),
    session.error ? h(Err, { message: session.error }) : null,
    h(
      'form',
      { class: 'filters', onSubmit: (ev: Event) => (ev.preventDefault(), run()) },
      h(Field, { id: 'r-target', label: 'Target agent' }, h('select', { id: 'r-target', value: chosen, onChange: (ev: Event) => setTarget((ev.target as HTMLSelectElement).value) }, targets.filter((t) => !t.experimental).map((t) => h('option', { value: t.id }, t.label)))),
      h(Field, { id: 'r-mode', label: 'Mode' }, h('select', { id: 'r-mode', value: mode, onChange: (ev: Event) => setMode((ev.target as HTMLSelectElement).value) }, h('option', { value: 'history' }, 'history (the whole conversation)'), h('option', { value: 'context' }, 'context (a compiled handoff)'))),
      h(Field, { id: 'r-cwd', label: 'Project folder (empty: the session\'s own)' }, h('input', { id: 'r-cwd', type: 'text', value: cwd, onInput: (ev: Event) => setCwd((ev.target as HTMLInputElement).value) })),
      h('div', { class: 'field check' }, h('input', { id: 'r-mkcwd', type: 'checkbox', checked: mkcwd, onChange: (ev: Event) => setMkcwd((ev.target as HTMLInputElement).checked) }), h('label', { for: 'r-mkcwd' }, 'create the project folder if it is missing')),
      h('button', { type: 'submit', id: 'preview' }, 'Preview (dry run)'),
    ),
    preview.loading ? h('p', { role: 'status' }, 'Computing the relay…') : null,
    preview.error ? h(Err, { message: preview.error }) : null,
    preview.data
      ? h(
          'div',
          { class: 'relay' },
          h('p', { id: 'totals', role: 'status' }, `Dry run, ${preview.data.mode} mode: ${['carried', 'translated', 'rendered', 'transformed', 'stubbed', 'dropped'].map((a) => `${preview.data!.totals[a]} ${a}`).join(', ')}`),
          h('ul', null, (preview.data.results ?? []).map((r: Json) => h('li', null, `Would write ${r.agent} session ${r.session_id} (${r.records} records) at ${r.path}; resume with `, h('code', null, r.resume)))),
          session.data?.writable
            ? confirming
              ? h('div', { class: 'confirm', role: 'group', 'aria-label': 'confirm the write' }, h('p', null, `Write this new ${chosen} session? Nothing existing is overwritten.`), h('button', { type: 'button', id: 'confirm-write', ref: confirmRef, onClick: write }, 'Yes, write it'), ' ', h('button', { type: 'button', onClick: () => setConfirming(false) }, 'Cancel'))
              : h('button', { type: 'button', id: 'write', onClick: () => setConfirming(true) }, 'Write…')
            : h('p', { class: 'muted' }, 'Read-only: start sp serve with --allow-write DIR to write relays.'),
          written.loading ? h('p', { role: 'status' }, 'Writing…') : null,
          written.error ? h(Err, { message: written.error }) : null,
          written.data ? h('div', { id: 'written', role: 'status', class: 'ok' }, (written.data.results ?? []).map((r: Json) => h('p', null, `Written: ${r.path} — resume with `, h('code', null, r.resume)))) : null,
          h(
            'div',
            { class: 'sidebyside' },
            h(
              'section',
              { 'aria-label': 'source events and their ledger rows' },
              h('h2', null, `Source (${events.length} events)`),
              h(
                'table',
                { class: 'ledger' },
                h('thead', null, h('tr', null, ['Seq', 'Event', 'Ledger', 'Why'].map((c) => h('th', { scope: 'col' }, c)))),
                h(
                  'tbody',
                  null,
                  events.slice(0, 3000).map((e) => {
                    const r = rows.get(e.seq);
                    return h(
                      'tr',
                      { class: r ? `row-${r.action}` : '' },
                      h('td', null, h('a', { href: `#/session?${keyQuery(key)}&seq=${e.seq}` }, String(e.seq))),
                      h('td', null, `${e.type} `, h('span', { class: 'muted' }, short(textOf(e.payload?.content) || e.payload?.name || e.payload?.cmd || e.payload?.path || '', 80))),
                      h('td', null, r ? h(ActionBadge, { action: r.action }) : ''),
                      h('td', null, r?.reason ? `${r.reason}${r.from ? ` (${r.from} → ${r.to ?? ''})` : ''}` : ''),
                    );
                  }),
                ),
              ),
            ),
            h('section', { 'aria-label': 'result' }, h('h2', null, `Result (${preview.data.lines?.length ?? 0} native lines)`), h('pre', { class: 'native', tabIndex: 0, 'aria-label': 'native lines of the result' }, (preview.data.lines ?? []).map((l: string) => short(l, 2000)).join('\n'))),
          ),
        )
      : null,
  );
}

// ---- compile -----------------------------------------------------------------------------

/** The handoff with every [seq N] / [seq N, M] mark a link to that event. */
function Linked({ text, keyQ }: { text: string; keyQ: string }) {
  const parts: ComponentChildren[] = [];
  const re = /\[seq ([0-9][0-9, –-]*)\]/g;
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    parts.push(text.slice(last, m.index));
    const nums = m[1].split(/[,\s–-]+/).filter(Boolean);
    parts.push('[seq ');
    nums.forEach((n, i) => {
      if (i) parts.push(', ');
      parts.push(h('a', { href: `#/session?${keyQ}&seq=${n}`, class: 'prov' }, n));
    });
    parts.push(']');
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return h('pre', { class: 'handoff', tabIndex: 0, 'aria-label': 'the compiled handoff' }, parts);
}

function CompilePage({ params }: { params: URLSearchParams }) {
  const key = params.get('stored') !== null ? { stored: params.get('stored')! } : { agent: params.get('agent') ?? '', id: params.get('id') ?? '' };
  const [target, setTarget] = useState(params.get('target') ?? 'markdown');
  const [budget, setBudget] = useState('');
  const [asked, setAsked] = useState({ target, budget });
  const { data, error, loading } = useApi('compile', { ...keyParams(key), target: asked.target, budget: asked.budget });
  return h(
    'main',
    { id: 'main', tabIndex: -1 },
    h('p', null, h('a', { href: `#/session?${keyQuery(key)}` }, '← Back to the session')),
    h('h1', null, 'Compiled handoff'),
    h(
      'form',
      { class: 'filters', onSubmit: (ev: Event) => (ev.preventDefault(), setAsked({ target, budget })) },
      h(Field, { id: 'c-target', label: 'For' }, h('select', { id: 'c-target', value: target, onChange: (ev: Event) => setTarget((ev.target as HTMLSelectElement).value) }, ['markdown', 'claude', 'codex', 'pi', 'hermes'].map((t) => h('option', { value: t }, t)))),
      h(Field, { id: 'c-budget', label: 'Token budget (empty: the target\'s default)' }, h('input', { id: 'c-budget', type: 'number', min: '1', value: budget, onInput: (ev: Event) => setBudget((ev.target as HTMLInputElement).value) })),
      h('button', { type: 'submit' }, 'Compile'),
    ),
    error ? h(Err, { message: error }) : null,
    loading ? h('p', { role: 'status' }, 'Compiling…') : null,
    data && !loading ? h('p', { role: 'status', id: 'tokens' }, `${JSON.stringify(data.tokens ?? '')} tokens for ${data.target}`.replace(/"/g, '')) : null,
    data && !loading ? h(Linked, { text: data.text, keyQ: keyQuery(key) }) : null,
  );
}

// ---- usage -------------------------------------------------------------------------------

const dollars = (row: Json) => (row.cost !== null ? `$${Number(row.cost).toFixed(2)}` : row.known_cost > 0 ? `$${Number(row.known_cost).toFixed(2)} + ?` : '?');
const count = (n: number) => n.toLocaleString('en-US');

/** Tokens and cost per day, week, agent, project or model (sp usage's rows), as bars and a table. */
function UsagePage({ params }: { params: URLSearchParams }) {
  const [by, setBy] = useState(params.get('by') ?? 'day');
  const [source, setSource] = useState(params.get('source') ?? 'agents');
  const { data, error, loading } = useApi('usage', { by, source });
  const rows = ((data?.rows as Json[] | undefined) ?? []).slice(0, 60);
  // Bars by cost when every row has one, else by tokens (a model without a price has no cost).
  const byCost = rows.length > 0 && rows.every((r) => r.cost !== null);
  const value = (r: Json) => (byCost ? Number(r.cost) : Number(r.total));
  const most = Math.max(1, ...rows.map(value));
  const width = 640;
  const bar = 18;
  return h(
    'main',
    { id: 'main', tabIndex: -1 },
    h('h1', null, 'Usage'),
    h(
      'form',
      { class: 'filters', onSubmit: (ev: Event) => ev.preventDefault() },
      h(Field, { id: 'u-by', label: 'Group by' }, h('select', { id: 'u-by', value: by, onChange: (ev: Event) => setBy((ev.target as HTMLSelectElement).value) }, ['day', 'week', 'agent', 'project', 'model'].map((g) => h('option', { value: g }, g)))),
      h(Field, { id: 'u-source', label: 'From' }, h('select', { id: 'u-source', value: source, onChange: (ev: Event) => setSource((ev.target as HTMLSelectElement).value) }, h('option', { value: 'agents' }, 'the agent homes'), h('option', { value: 'store' }, 'the store'))),
    ),
    error ? h(Err, { message: error }) : null,
    loading ? h('p', { role: 'status' }, 'Reading usage…') : null,
    data && !loading && rows.length === 0 ? h('p', { role: 'status', id: 'usage-total' }, 'No usage recorded.') : null,
    data && !loading && rows.length > 0
      ? h(
          'div',
          null,
          h('p', { role: 'status', id: 'usage-total' }, `${count(data.total.total)} tokens, ${dollars(data.total)} (prices of ${data.prices?.date ?? 'the shipped table'})`),
          h(
            'svg',
            { class: 'chart', viewBox: `0 0 ${width} ${rows.length * (bar + 6)}`, width: '100%', role: 'img', 'aria-label': `${byCost ? 'Cost' : 'Tokens'} by ${by}` },
            rows.map((r, i) =>
              h(
                'g',
                { transform: `translate(0 ${i * (bar + 6)})` },
                h('text', { x: 0, y: bar - 5, class: 'chart-label' }, String(r.key).slice(0, 24)),
                h('rect', { x: 180, y: 0, height: bar, width: Math.max(1, ((width - 300) * value(r)) / most), class: r.cost === null ? 'chart-bar unknown' : 'chart-bar' }),
                h('text', { x: width - 110, y: bar - 5, class: 'chart-value' }, byCost ? dollars(r) : count(r.total)),
              ),
            ),
          ),
          h(
            'table',
            { class: 'usage' },
            h('caption', null, `Tokens and cost by ${by}`),
            h('thead', null, h('tr', null, [by, 'input', 'output', 'cache read', 'cache write', 'total', 'cost'].map((c) => h('th', { scope: 'col' }, c)))),
            h(
              'tbody',
              null,
              rows.map((r) => h('tr', null, h('th', { scope: 'row' }, String(r.key)), h('td', null, count(r.input)), h('td', null, count(r.output)), h('td', null, count(r.cache_read)), h('td', null, count(r.cache_write)), h('td', null, count(r.total)), h('td', null, dollars(r)))),
            ),
          ),
        )
      : null,
  );
}

// ---- exported file -----------------------------------------------------------------------

const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

async function unseal(sealed: Json, passphrase: string): Promise<Json> {
  const material = await crypto.subtle.importKey('raw', new TextEncoder().encode(passphrase.normalize('NFC')), 'PBKDF2', false, ['deriveKey']);
  const key = await crypto.subtle.deriveKey({ name: 'PBKDF2', hash: 'SHA-256', salt: b64(sealed.salt), iterations: sealed.iterations }, material, { name: 'AES-GCM', length: 256 }, false, ['decrypt']);
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: b64(sealed.iv) }, key, b64(sealed.data));
  return JSON.parse(new TextDecoder().decode(plain)) as Json;
}

function Exported() {
  const payload = useMemo(() => JSON.parse(embedded!.textContent ?? '{}') as Json, []);
  const [view, setView] = useState<Json | undefined>(payload.view);
  const [pass, setPass] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  if (view) return h('main', { id: 'main', tabIndex: -1 }, h(SessionView, { view }), h('footer', { class: 'muted' }, `Exported by sp ${view.exported?.at ? `on ${time(view.exported.at)}` : ''}, redacted (${view.exported?.profile ?? 'default'} profile).`));
  const open = async (ev: Event) => {
    ev.preventDefault();
    setBusy(true);
    setError('');
    try {
      setView(await unseal(payload.sealed, pass));
    } catch {
      setError('Wrong passphrase, or the file was changed: it cannot be decrypted.');
    } finally {
      setBusy(false);
    }
  };
  return h(
    'main',
    { id: 'main', tabIndex: -1 },
    h('h1', null, 'Encrypted session'),
    h('form', { class: 'unlock', onSubmit: open }, h(Field, { id: 'passphrase', label: 'Passphrase' }, h('input', { id: 'passphrase', type: 'password', autocomplete: 'off', value: pass, onInput: (ev: Event) => setPass((ev.target as HTMLInputElement).value) })), h('button', { type: 'submit', disabled: busy }, busy ? 'Decrypting…' : 'Open')),
    error ? h(Err, { message: error }) : null,
  );
}

// ---- the app -----------------------------------------------------------------------------

function App() {
  const { page, params } = useRoute();
  useEffect(() => {
    // A new page starts at its top, its main heading focused for keyboard and screen-reader users.
    if (!params.get('seq')) scrollTo(0, 0);
  }, [page]);
  if (EXPORTED) return h(Exported, null);
  const body = page === '/session' ? h(SessionPage, { params }) : page === '/relay' ? h(RelayPage, { params }) : page === '/compile' ? h(CompilePage, { params }) : page === '/usage' ? h(UsagePage, { params }) : h(ListPage, null);
  return h('div', null, h('a', { href: '#main', class: 'skip', onClick: (ev: Event) => (ev.preventDefault(), document.getElementById('main')?.focus()) }, 'Skip to content'), h('header', { class: 'top' }, h('a', { href: '#/' }, 'sp sessions'), ' ', h('a', { href: '#/usage' }, 'Usage')), body);
}

render(h(App, null), document.getElementById('app')!);
