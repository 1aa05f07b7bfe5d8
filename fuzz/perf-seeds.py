#!/usr/bin/env python3
# Shrinks real perf.data recordings into fuzz seeds (fuzz/corpus/perf and
# perf_pipe): the tracing data keeps its header_page, header_event and
# event formats but loses the ftrace formats, kallsyms, printk formats and
# all but a few cmdlines; MMAP/MMAP2 records and features other than the
# tracing data go.  Everything else stays byte for byte, so the seeds are
# the structure perf writes, small enough for AFL.
#   fuzz/perf-seeds.py OUT_DIR FILE...   (pipe files are told by their header)
import struct, sys, os

def shrink_td(t):
    p = 0
    out = bytearray()
    out += t[:10]; p = 10
    e = t.index(b'\0', p) + 1; out += t[p:e]; p = e          # version
    out += t[p:p + 6]; p += 6                                  # endian, long, page
    for _ in range(2):                                         # header_page, header_event
        e = t.index(b'\0', p) + 1
        n = struct.unpack_from('<Q', t, e)[0]
        out += t[p:e + 8 + n]; p = e + 8 + n
    n = struct.unpack_from('<I', t, p)[0]; p += 4              # ftrace formats: drop
    for _ in range(n):
        p += 8 + struct.unpack_from('<Q', t, p)[0]
    out += struct.pack('<I', 0)
    start = p                                                  # event systems: keep
    nsys = struct.unpack_from('<I', t, p)[0]; p += 4
    for _ in range(nsys):
        p = t.index(b'\0', p) + 1
        c = struct.unpack_from('<I', t, p)[0]; p += 4
        for _ in range(c):
            p += 8 + struct.unpack_from('<Q', t, p)[0]
    out += t[start:p]
    p += 4 + struct.unpack_from('<I', t, p)[0]                 # kallsyms
    out += struct.pack('<I', 0)
    p += 4 + struct.unpack_from('<I', t, p)[0]                 # printk
    out += struct.pack('<I', 0)
    if p + 8 <= len(t):                                        # cmdlines: 3 lines
        n = struct.unpack_from('<Q', t, p)[0]
        lines = t[p + 8:p + 8 + n].split(b'\n')[:3]
        c = b'\n'.join(lines) + b'\n'
        out += struct.pack('<Q', len(c)) + c
    return bytes(out)

def records(d, p, end):
    while p + 8 <= end:
        ty, misc, sz = struct.unpack_from('<IHH', d, p)
        if sz < 8:
            break
        yield p, ty, sz
        p += sz

def do_pipe(d):
    out = bytearray(d[:16])
    p = 16
    while p + 8 <= len(d):
        ty, misc, sz = struct.unpack_from('<IHH', d, p)
        if sz < 8:
            break
        if ty == 66:
            n = struct.unpack_from('<I', d, p + 8)[0]
            t = shrink_td(d[p + sz:p + sz + n])
            t += b'\0' * (-len(t) % 8)
            out += d[p:p + 8] + struct.pack('<I', len(t)) + d[p + 12:p + sz] + t
            p += sz + n
            continue
        if ty not in (1, 10, 80):
            out += d[p:p + sz]
        p += sz
    return bytes(out)

def do_file(d):
    hsize, asz, aoff, alen, doff, dlen = struct.unpack_from('<QQQQQQ', d, 8)
    flags = struct.unpack_from('<4Q', d, 72)
    bits = [b for b in range(256) if flags[b // 64] >> (b % 64) & 1]
    foff = doff + dlen
    feats = {b: struct.unpack_from('<QQ', d, foff + 16 * i) for i, b in enumerate(bits)}
    td = shrink_td(d[feats[1][0]:feats[1][0] + feats[1][1]])
    data = bytearray()
    for p, ty, sz in records(d, doff, doff + dlen):
        if ty not in (1, 10):
            data += d[p:p + sz]
    # layout: header, attrs (ids follow each), data, feature table, tracing data
    out = bytearray(d[:hsize])
    attrs = bytearray()
    ids = bytearray()
    nattr = alen // asz
    ids_base = hsize + alen
    for i in range(nattr):
        a = d[aoff + i * asz:aoff + (i + 1) * asz]
        io, il = struct.unpack_from('<QQ', a, asz - 16)
        attrs += a[:asz - 16] + struct.pack('<QQ', ids_base + len(ids), il)
        ids += d[io:io + il]
    new_doff = ids_base + len(ids)
    out += attrs + ids + data
    ftab = len(out)
    out += struct.pack('<QQ', ftab + 16, len(td)) + td
    struct.pack_into('<QQQQQQ', out, 8, hsize, asz, hsize, alen, new_doff, len(data))
    struct.pack_into('<4Q', out, 72, 2, 0, 0, 0)
    return bytes(out)

outdir = sys.argv[1]
for f in sys.argv[2:]:
    d = open(f, 'rb').read()
    pipe = struct.unpack_from('<Q', d, 8)[0] == 16
    o = do_pipe(d) if pipe else do_file(d)
    if pipe:
        o = o[16:]      # the pipe target adds the header itself
    name = os.path.join(outdir, 'seed-rec-' + os.path.basename(f))
    open(name, 'wb').write(o)
    print(name, len(d), '->', len(o))
