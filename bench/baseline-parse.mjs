// The baseline every stream benchmark is compared with: a bare readline + JSON.parse pass.
import { createInterface } from 'node:readline';
import { createReadStream } from 'node:fs';

let events = 0;
const input = process.argv[2] ? createReadStream(process.argv[2]) : process.stdin;
for await (const line of createInterface({ input, crlfDelay: Infinity })) {
  if (line) {
    JSON.parse(line);
    events++;
  }
}
process.stderr.write(`${events}\n`);
