-- sp team remote on PostgreSQL, migration 002: forwarding. A machine's push may carry another
-- machine's signed session folder unchanged (lib/sync/forward.ts), stored under that machine's id
-- as if it had pushed it; pull verifies it against that machine's key as always, so the server
-- and the forwarder stay untrusted for what the events say.
--
-- Forwarding is opt-in per role: only members of `sp_forward` (GRANT sp_forward TO bob) may write
-- rows of machines they did not claim, and only new ones for sessions and events (an event key is
-- stored once, whoever sends it first; a forwarder never edits another machine's session row). A
-- forwarder can at worst make a folder that pull refuses (a bad row sent first), never one it
-- takes. A machine id first seen through a forwarder is unclaimed (owner sp_forward) until that
-- machine's own first push claims it.

DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'sp_forward') THEN CREATE ROLE sp_forward NOLOGIN; END IF;
END $$;
GRANT sp_team TO sp_forward;
GRANT UPDATE (owner, key_id, public_key) ON sp.machines TO sp_team;

CREATE POLICY machines_forward ON sp.machines FOR INSERT TO sp_forward WITH CHECK (owner = 'sp_forward');
CREATE POLICY machines_claim_forwarded ON sp.machines FOR UPDATE TO sp_team USING (owner = 'sp_forward') WITH CHECK (owner = current_user);

CREATE POLICY sessions_forward ON sp.sessions FOR INSERT TO sp_forward WITH CHECK (pushed_by = current_user);
CREATE POLICY events_forward ON sp.events FOR INSERT TO sp_forward WITH CHECK (
  pushed_by = current_user
  AND project = (SELECT s.project FROM sp.sessions s WHERE s.machine = events.machine AND s.session_id = events.session_id));
CREATE POLICY files_forward ON sp.files FOR INSERT TO sp_forward WITH CHECK (
  pushed_by = current_user
  AND project = (SELECT s.project FROM sp.sessions s WHERE s.machine = files.machine AND s.session_id = files.session_id));
CREATE POLICY files_forward_update ON sp.files FOR UPDATE TO sp_forward USING (true) WITH CHECK (
  pushed_by = current_user
  AND project = (SELECT s.project FROM sp.sessions s WHERE s.machine = files.machine AND s.session_id = files.session_id));
