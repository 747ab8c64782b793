// Start-up scan of one segment file: checks every record's checksums, rebuilds the in-memory index and
// repairs the file. Damage at the very end of the newest segment is a write torn by a crash: those bytes
// were never acknowledged (an append resolves only after its write, and its fsync with `fsync: always`),
// so they are cut off and the count logged. Damage followed by valid records, or at the end of an older
// segment, may hide acknowledged data: it is copied to the quarantine file and the segment is rewritten
// without it, so the next start does not report it again.
import type { Logger } from '../../log.ts';
import { syncDirectory, writeAll, type DiskIo } from './io.ts';
import type { Quarantine } from './quarantine.ts';
import { findNextRecord, parseRecord } from '../../../codec/disk/record.ts';
import { Segment } from './segment.ts';

export interface RecoveryContext {
  io: DiskIo;
  directory: string;
  logger: Logger;
  quarantine: Quarantine;
}

interface Found {
  seq: number;
  start: number;
  end: number;
  spans: number;
}

export async function recoverSegment(
  ctx: RecoveryContext,
  baseSeq: number,
  isNewest: boolean,
  previousSeq: number,
): Promise<Segment> {
  const segment = new Segment(ctx.directory, baseSeq);
  const buf = await ctx.io.readFile(segment.path);
  const found: Found[] = [];
  const damaged: { start: number; end: number; reason: string }[] = [];
  let tornAt = -1;
  let lastSeq = previousSeq;
  let p = 0;
  while (p < buf.length) {
    const r = parseRecord(buf, p, buf.length);
    if (r.kind === 'ok' && r.seq > lastSeq) {
      found.push({ seq: r.seq, start: p, end: r.end, spans: r.spans });
      lastSeq = r.seq;
      p = r.end;
      continue;
    }
    const reason = r.kind === 'ok' ? `seq ${r.seq} not after ${lastSeq}` : r.kind === 'short' ? 'incomplete record' : r.reason;
    const next = findNextRecord(buf, p + 1, buf.length);
    if (next === -1 && isNewest) {
      tornAt = p;
      break;
    }
    const end = next === -1 ? buf.length : next;
    damaged.push({ start: p, end, reason });
    p = end;
  }

  for (const d of damaged) {
    await ctx.quarantine.put(
      { segment: segment.name, offset: d.start, length: d.end - d.start, reason: d.reason },
      buf.subarray(d.start, d.end),
    );
  }

  if (damaged.length > 0) {
    // Rewrite with the valid records only, atomically: a crash during the rewrite leaves the old file.
    const parts = found.map((f) => buf.subarray(f.start, f.end));
    const temp = `${segment.path}.rewrite`;
    const fd = await ctx.io.open(temp, 'w');
    try {
      if (parts.length > 0) await writeAll(ctx.io, fd, parts, 0);
      await ctx.io.fdatasync(fd);
    } finally {
      await ctx.io.close(fd);
    }
    await ctx.io.rename(temp, segment.path);
    await syncDirectory(ctx.io, ctx.directory);
    let offset = 0;
    for (const f of found) {
      segment.add(f.seq, offset, f.end - f.start, f.spans);
      offset += f.end - f.start;
    }
  } else {
    for (const f of found) segment.add(f.seq, f.start, f.end - f.start, f.spans);
  }

  if (tornAt >= 0) {
    const dropped = buf.length - tornAt;
    const cut = segment.size;
    const fd = await ctx.io.open(segment.path, 'r+');
    try {
      await ctx.io.ftruncate(fd, cut);
      await ctx.io.fdatasync(fd);
    } finally {
      await ctx.io.close(fd);
    }
    ctx.logger.warn('torn record at the end of the stream truncated (it was never acknowledged)', {
      segment: segment.name,
      offset: tornAt,
      bytesDropped: dropped,
    });
  }
  return segment;
}
