// dump.mjs FILE — read a Parquet file with hyparquet (pure JavaScript, no
// code shared with parquet-go) and print it as one JSON object:
//
//   {"num_rows": N, "row_groups": G, "key_value_metadata": {...},
//    "schema": [{"name", "type", "logical_type", "converted_type", "repetition_type"}...],
//    "rows": [{column: value, ...}, ...]}
//
// Values: strings as strings, doubles as JSON numbers, INT64 as decimal
// strings (exact), TIMESTAMP(MICROS) as {"timestamp_us": "<decimal>"}.
// It is the second, independent reader of the results tests.
import { readFileSync } from 'node:fs'
import { parquetMetadata, parquetReadObjects } from 'hyparquet'

const path = process.argv[2]
if (!path) {
  console.error('usage: node dump.mjs FILE')
  process.exit(2)
}
const bytes = readFileSync(path)
const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
const metadata = parquetMetadata(file)
const rows = await parquetReadObjects({
  file,
  metadata,
  parsers: {
    timestampFromMicroseconds: (us) => ({ timestamp_us: us.toString() }),
  },
})
const kv = {}
for (const { key, value } of metadata.key_value_metadata ?? []) kv[key] = value
const schema = metadata.schema.slice(1).map((e) => ({
  name: e.name,
  type: e.type,
  logical_type: e.logical_type ?? null,
  converted_type: e.converted_type ?? null,
  repetition_type: e.repetition_type ?? null,
}))
const out = {
  num_rows: metadata.num_rows,
  row_groups: metadata.row_groups.length,
  created_by: metadata.created_by ?? null,
  key_value_metadata: kv,
  schema,
  rows,
}
process.stdout.write(JSON.stringify(out, (_, v) => (typeof v === 'bigint' ? v.toString() : v)))
process.stdout.write('\n')
