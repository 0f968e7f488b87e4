// The Droid fixtures (fixtures/droid/README.md): two sessions recorded by the real client.
export const HOME = 'fixtures/droid/corpus/.factory';
export const SESSION_ID = 'f9c0b65d-7aee-4309-8a6f-504c42f38b9a';
export const SESSION = `${HOME}/sessions/-home-judy-acme-api/${SESSION_ID}.jsonl`;
export const THINKING_ID = '186d86ec-e9a2-4d59-9619-76fc8f045c8a';
export const THINKING = `${HOME}/sessions/-home-judy-acme-api/${THINKING_ID}.jsonl`;
export const ALL = [SESSION, THINKING];
