#!/usr/bin/env python3
"""An independent reader of Shenmue containers, written from the spec
(../shared/formats/shenmue-containers.md: gzip 3, PAKS 4, IPAC 5, AFS 7), for the
tests: it shares no code with animfs. A path may go into nested containers with '/'
after the file: X.AFS/SYNA.PKS names member SYNA.PKS of the AFS.

  shm_reader.py list PATH            one line a member: index name type offset size sha256
  shm_reader.py extract PATH OUT     the bytes of a member (PATH = FILE/MEMBER/...)
  shm_reader.py inflate FILE OUT     the content under any gzip layers
  shm_reader.py layout PATH          'canonical-32' when the IPAC follows spec 5.3 exactly
"""
import hashlib
import struct
import sys
import zlib


def u32(b, o):
    return struct.unpack_from('<I', b, o)[0]


def ungzip(b):
    """Peel gzip layers (spec 3.1); the CRC-32 and ISIZE are checked."""
    while b[:3] == b'\x1f\x8b\x08':
        flg, pos = b[3], 10
        if flg & 4:
            pos += 2 + struct.unpack_from('<H', b, pos)[0]
        for bit in (8, 16):
            if flg & bit:
                pos = b.index(b'\0', pos) + 1
        if flg & 2:
            pos += 2
        d = zlib.decompressobj(-15)
        out = d.decompress(b[pos:])
        tail = d.unused_data
        assert d.eof and len(tail) >= 8, 'truncated gzip'
        assert u32(tail, 0) == zlib.crc32(out) and u32(tail, 4) == len(out) & 0xFFFFFFFF
        b = out
    return b


def ipac_members(b, base):
    """IPAC at base (spec 5): [(name, type, offset in b, size)]."""
    assert b[base:base + 4] == b'IPAC'
    dir_off, count, content = struct.unpack_from('<III', b, base + 4)
    assert dir_off == content, 'IPAC +4 and +12 disagree'
    out = []
    for i in range(count):
        e = base + dir_off + 20 * i
        name, typ, off, size = struct.unpack_from('<8s4sII', b, e)
        name = name.split(b'\0')[0].decode('latin-1')
        typ = typ.split(b'\0')[0].decode('latin-1').rstrip(' ')
        out.append((name + ('.' + typ if typ else ''), typ, base + off, size))
    return out


def afs_members(b):
    """AFS (spec 7): names from the table at either pointer position."""
    count = u32(b, 4)
    toc = [struct.unpack_from('<II', b, 8 + 8 * i) for i in range(count)]
    live = [(i, o, s) for i, (o, s) in enumerate(toc) if o or s]
    first = min(o for _, o, _ in live)
    last_end = max(o + s for _, o, s in live)
    names = None
    for at in (8 + 8 * count, first - 8):
        no, ns = struct.unpack_from('<II', b, at)
        if no and ns >= 48 * count and no >= last_end and no + ns <= len(b):
            names = no
            break
    out = []
    for i, o, s in live:
        n = b[names + 48 * i:names + 48 * i + 32].split(b'\0')[0].decode() if names else '%05d' % i
        out.append((n, '', o, s))
    return out


def members(b):
    b = ungzip(b)
    if b[:4] == b'PAKS':
        return b, ipac_members(b, u32(b, 4))
    if b[:4] == b'IPAC':
        return b, ipac_members(b, 0)
    if b[:4] == b'AFS\0':
        return b, afs_members(b)
    raise SystemExit('not a container')


def open_path(path):
    """(content, members) of the innermost container that PATH names."""
    parts = path.split('/')
    k = 1
    while k < len(parts):
        try:
            open('/'.join(parts[:k]), 'rb').close()
            break
        except (IsADirectoryError, FileNotFoundError, NotADirectoryError):
            k += 1
    b = open('/'.join(parts[:k]), 'rb').read()
    for want in parts[k:]:
        b, ms = members(b)
        hit = [m for m in ms if m[0] == want]
        assert hit, 'no member ' + want
        _, _, o, s = hit[0]
        b = b[o:o + s]
    return b


def canonical(b):
    b, ms = members(b)
    base = u32(b, 4) if b[:4] == b'PAKS' else 0
    dir_off = u32(b, base + 4)
    pos = base + 16
    for _, _, o, s in ms:
        if o != pos:
            return 'irregular'
        pos = o + s + (-(o + s - base - 16)) % 32
        if any(b[o + s:pos]):
            return 'irregular'
    return 'canonical-32' if pos == base + dir_off and base + dir_off + 20 * len(ms) == len(b) else 'irregular'


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    if cmd == 'list':
        b, ms = members(open_path(path))
        for i, (n, t, o, s) in enumerate(ms):
            print(i, n, t or '-', hex(o), s, hashlib.sha256(b[o:o + s]).hexdigest())
    elif cmd == 'extract':
        open(sys.argv[3], 'wb').write(open_path(path))
    elif cmd == 'inflate':
        open(sys.argv[3], 'wb').write(ungzip(open(path, 'rb').read()))
    elif cmd == 'layout':
        print(canonical(open_path(path)))


if __name__ == '__main__':
    main()
