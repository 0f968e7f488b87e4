// Cases that still fail, each with what is wrong, so the suite stays green while it names them: a
// listed case runs as test.fails, so the day it is fixed the suite says so and the entry goes.
// Key: `<binary> <target>/<case>`.
export const KNOWN: Record<string, string> = {
};
