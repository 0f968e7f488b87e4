-- sp team remote on PostgreSQL, migration 001: the tables a remote tree is stored in, search
-- indexes, and row-level security by project. Applied by `sp-sync remote init NAME` in one
-- transaction (recorded in sp.schema_version); every statement is safe to read on its own.
--
-- The server is storage, never trusted: pull rebuilds each machine's signed folder from these
-- rows and verifies it exactly as a folder remote's (signature, chain, count, head, trust binding).
--
-- Roles: `sp_team` (no login) holds the privileges; each teammate logs in with an own role that is
-- a member of it (GRANT sp_team TO alice). A role reads the rows it pushed itself and the rows of
-- the projects granted to it (or to a role it is a member of) in sp.grants, which it sees only
-- its own rows of (`sp-sync remote grant NAME ROLE PROJECT`). The owner of
-- the tables (who ran init) is not subject to the policies.

CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE SCHEMA IF NOT EXISTS sp;

DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'sp_team') THEN CREATE ROLE sp_team NOLOGIN; END IF;
END $$;

-- Which login role pushes as which machine: the first push claims a machine id.
CREATE TABLE sp.machines (
  machine    text PRIMARY KEY CHECK (machine ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
  owner      name NOT NULL DEFAULT current_user,
  key_id     text,
  public_key text,
  first_push timestamptz NOT NULL DEFAULT now()
);

-- Routing fields of each machine's published session (plaintext even on an encrypted remote).
CREATE TABLE sp.sessions (
  machine     text NOT NULL REFERENCES sp.machines (machine),
  session_id  text NOT NULL CHECK (session_id ~ '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$'),
  project     text NOT NULL DEFAULT '',
  agent       text,
  first_ts    double precision,
  last_ts     double precision,
  event_count integer NOT NULL DEFAULT 0,
  deleted     boolean NOT NULL DEFAULT false,
  sealed      boolean NOT NULL DEFAULT false,
  pushed_by   name NOT NULL DEFAULT current_user,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (machine, session_id)
);
CREATE INDEX sessions_project ON sp.sessions (project);

-- One row per published event line (plain remotes): the key makes a re-push store nothing twice.
CREATE TABLE sp.events (
  machine    text NOT NULL,
  session_id text NOT NULL,
  seq        integer NOT NULL CHECK (seq >= 0),
  line       text NOT NULL,
  checksum   text,
  ts         double precision,
  type       text,
  project    text NOT NULL DEFAULT '',
  body       text NOT NULL DEFAULT '',
  tsv        tsvector GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED,
  pushed_by  name NOT NULL DEFAULT current_user,
  PRIMARY KEY (machine, session_id, seq),
  FOREIGN KEY (machine, session_id) REFERENCES sp.sessions (machine, session_id)
);
CREATE INDEX events_tsv ON sp.events USING gin (tsv);
CREATE INDEX events_trgm ON sp.events USING gin (body gin_trgm_ops);
CREATE INDEX events_ts ON sp.events (ts);

-- Every other file of a machine's folder, by its path below machines/<machine>/: signed manifests
-- (sessions/<id>/manifest.json), sealed chunks and manifests of encrypted remotes, receipts and
-- whatever else a push writes there. session_id and project route it ('' outside a session).
CREATE TABLE sp.files (
  machine    text NOT NULL REFERENCES sp.machines (machine),
  path       text NOT NULL CHECK (path ~ '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}(/[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}){0,5}$'),
  session_id text NOT NULL DEFAULT '',
  project    text NOT NULL DEFAULT '',
  bytes      bytea NOT NULL,
  sha256     text NOT NULL,
  pushed_by  name NOT NULL DEFAULT current_user,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (machine, path)
);

-- Content-addressed blobs (artifacts/<name>): the name is the blob's sha256 (plain) or the
-- sha256 of its ciphertext plus .age (encrypted); pull checks each against its name.
CREATE TABLE sp.artifacts (
  name      text PRIMARY KEY CHECK (name ~ '^[0-9a-f]{64}(\.age)?$'),
  bytes     bytea NOT NULL,
  pushed_by name NOT NULL DEFAULT current_user
);

-- Which role may read which project.
CREATE TABLE sp.grants (
  role    name NOT NULL,
  project text NOT NULL,
  PRIMARY KEY (role, project)
);

GRANT USAGE ON SCHEMA sp TO sp_team;
GRANT SELECT ON sp.grants TO sp_team;
GRANT SELECT, INSERT ON sp.machines TO sp_team;
GRANT SELECT, INSERT, UPDATE ON sp.sessions, sp.files TO sp_team;
GRANT SELECT, INSERT ON sp.events, sp.artifacts TO sp_team;
GRANT SELECT ON sp.schema_version TO sp_team;

ALTER TABLE sp.machines ENABLE ROW LEVEL SECURITY;
ALTER TABLE sp.sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE sp.events ENABLE ROW LEVEL SECURITY;
ALTER TABLE sp.files ENABLE ROW LEVEL SECURITY;
ALTER TABLE sp.artifacts ENABLE ROW LEVEL SECURITY;
ALTER TABLE sp.grants ENABLE ROW LEVEL SECURITY;

-- A role sees its own grants (and those of the roles it is a member of), nobody else's.
CREATE POLICY grants_own ON sp.grants FOR SELECT TO sp_team USING (pg_has_role(current_user, role, 'MEMBER'));

-- Machine ids are not secret (they name folders); a role claims only for itself, and writes only
-- the rows of machines it claimed.
CREATE POLICY machines_read ON sp.machines FOR SELECT TO sp_team USING (true);
CREATE POLICY machines_claim ON sp.machines FOR INSERT TO sp_team WITH CHECK (owner = current_user);

CREATE POLICY sessions_read ON sp.sessions FOR SELECT TO sp_team USING ((pushed_by = current_user OR project IN (SELECT g.project FROM sp.grants g)));
CREATE POLICY sessions_write ON sp.sessions FOR INSERT TO sp_team WITH CHECK (pushed_by = current_user AND EXISTS (SELECT 1 FROM sp.machines m WHERE m.machine = sessions.machine AND m.owner = current_user));
CREATE POLICY sessions_update ON sp.sessions FOR UPDATE TO sp_team USING (EXISTS (SELECT 1 FROM sp.machines m WHERE m.machine = sessions.machine AND m.owner = current_user)) WITH CHECK (pushed_by = current_user AND EXISTS (SELECT 1 FROM sp.machines m WHERE m.machine = sessions.machine AND m.owner = current_user));

CREATE POLICY events_read ON sp.events FOR SELECT TO sp_team USING ((pushed_by = current_user OR project IN (SELECT g.project FROM sp.grants g)));
CREATE POLICY events_write ON sp.events FOR INSERT TO sp_team WITH CHECK (pushed_by = current_user AND EXISTS (SELECT 1 FROM sp.machines m WHERE m.machine = events.machine AND m.owner = current_user));

CREATE POLICY files_read ON sp.files FOR SELECT TO sp_team USING ((pushed_by = current_user OR project IN (SELECT g.project FROM sp.grants g)));
CREATE POLICY files_write ON sp.files FOR INSERT TO sp_team WITH CHECK (pushed_by = current_user AND EXISTS (SELECT 1 FROM sp.machines m WHERE m.machine = files.machine AND m.owner = current_user));
CREATE POLICY files_update ON sp.files FOR UPDATE TO sp_team USING (EXISTS (SELECT 1 FROM sp.machines m WHERE m.machine = files.machine AND m.owner = current_user)) WITH CHECK (pushed_by = current_user AND EXISTS (SELECT 1 FROM sp.machines m WHERE m.machine = files.machine AND m.owner = current_user));

-- Blobs are named by their hash: a role reads one only by knowing it (or listing names). They are
-- not tied to a project (one blob may serve several sessions).
CREATE POLICY artifacts_read ON sp.artifacts FOR SELECT TO sp_team USING (true);
CREATE POLICY artifacts_write ON sp.artifacts FOR INSERT TO sp_team WITH CHECK (pushed_by = current_user);
