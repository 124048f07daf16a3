# Simulation of the Pinning benchmark (allocator-bench PinningBenchmark: sizes log-uniform 16 KiB-1 MiB, 80
# long-lived slots replaced every 100 operations, 8 short-lived ones) under two designs for sizes above the size
# classes: bump-allocated, reference-counted large chunks, and page runs inside fixed-size chunks (magalloc's design,
# docs/design.md, protocol 6). Prints used bytes / live bytes (median and worst over the run); the last rows compare
# placements and spare allowances (no reuse pool in any row). Sizes up to 32 KiB are counted at their size class.
# Run: python3 large_size_pinning.py (about 6 minutes).
import random, math, sys
random.seed(42)
MIN, MAX = 16*1024, 1024*1024
def size(): return int(math.exp(random.uniform(math.log(MIN), math.log(MAX))))
SMALL_MAX = 32768

class SizeClassed:  # magalloc's small path approximated: exact class bytes, chunk overhead ignored (<=32K)
    pass

def classes_bytes(n):  # round up to magalloc's classes above 16K: 16384,16896,20480,24576,32768
    for c in (16384, 16896, 20480, 24576, 32768):
        if n <= c: return c
    return None

class Bump:
    """Bump chunks of 2x the running average (pow2, >=128K, <=8M), reference-counted, reset when empty."""
    def __init__(s): s.chunks = {}; s.cur = None; s.avg = 0; s.nid = 0
    def used(s): return sum(c['size'] for c in s.chunks.values())
    def alloc(s, n):
        n = (n + 63) & ~63
        s.avg += (n - s.avg) >> 3
        c = s.cur
        if c and c['off'] + n > c['size'] and c['refs'] == 0: c['off'] = 0
        if not c or c['off'] + n > c['size']:
            want = max(n, s.avg) * 2
            size_ = 8 << 20 if want >= 8 << 20 else max(128 << 10, 1 << (want - 1).bit_length())
            size_ = max(size_, n)
            if c and c['refs'] == 0: del s.chunks[c['id']]
            s.nid += 1; c = {'id': s.nid, 'size': size_, 'off': 0, 'refs': 0}; s.chunks[c['id']] = c; s.cur = c
        c['off'] += n; c['refs'] += 1
        return c['id']
    def free(s, h):
        c = s.chunks[h]; c['refs'] -= 1
        if c['refs'] == 0 and c is not s.cur: del s.chunks[h]

class Runs:
    """Page runs: chunks of CHUNK bytes cut into PAGE pages; first fit over chunks in creation order; a chunk
    goes back when empty, except the last one left."""
    def __init__(s, chunk, page): s.CH = chunk; s.PG = page; s.chunks = []
    def used(s): return len(s.chunks) * s.CH
    def alloc(s, n):
        pages = -(-n // s.PG)
        if pages * s.PG > s.CH: return ('huge', n)
        for c in s.chunks:
            start = s.fit(c, pages)
            if start is not None: break
        else:
            c = [False] * (s.CH // s.PG); s.chunks.append(c); start = 0
        for i in range(start, start + pages): c[i] = True
        return (id(c), start, pages, c)
    def fit(s, c, pages):
        run = 0
        for i, b in enumerate(c):
            run = 0 if b else run + 1
            if run == pages: return i - pages + 1
        return None
    def free(s, h):
        if h[0] == 'huge': return
        _, start, pages, c = h
        for i in range(start, start + pages): c[i] = False
        if not any(c) and len(s.chunks) > 1: s.chunks.remove(c)

class Placed(Runs):
    """Page runs in 1 MiB chunks with a choice of placement, and empty chunks kept as spares up to 1/spare_div of
    the chunks in use (None: one). Placement: 'first' fit (magalloc's), 'best' (the shortest free run that fits, over
    all chunks) or 'fullest' (the fullest chunk that has a long enough run). These rows show whether placement,
    rather than the empty memory kept, is what stands between Pinning and 1.5x (it is not)."""
    def __init__(s, mode, spare_div): super().__init__(1 << 20, 8192); s.mode = mode; s.spare_div = spare_div
    def alloc(s, n):
        pages = -(-n // s.PG)
        if pages * s.PG > s.CH: return ('huge', n)
        best = None
        for c in s.chunks:
            for start, length in s.free_runs(c):
                if length < pages: continue
                key = 0 if s.mode == 'first' else length if s.mode == 'best' else -sum(c)
                if best is None or key < best[0]: best = (key, c, start)
                if s.mode == 'first': break
            if best is not None and s.mode == 'first': break
        if best is None:
            c = [False] * (s.CH // s.PG); s.chunks.append(c); start = 0
        else:
            _, c, start = best
        for i in range(start, start + pages): c[i] = True
        return (id(c), start, pages, c)
    @staticmethod
    def free_runs(c):
        i = 0
        while i < len(c):
            if c[i]: i += 1; continue
            j = i
            while j < len(c) and not c[j]: j += 1
            yield i, j - i; i = j
    def free(s, h):
        if h[0] == 'huge': return
        _, start, pages, c = h
        for i in range(start, start + pages): c[i] = False
        empty = [x for x in s.chunks if not any(x)]
        keep = 1 if s.spare_div is None else max(1, (len(s.chunks) - len(empty)) // s.spare_div)
        for x in empty[keep:]: s.chunks.remove(x)

def run(design, ops=400_000):
    LONG_EVERY, LONG_SLOTS, SHORT_SLOTS = 100, 80, 8
    huge = 0
    def alloc(n):
        nonlocal huge
        if n <= SMALL_MAX: return ('small', classes_bytes(n))
        h = design.alloc(n)
        if isinstance(h, tuple) and h[0] == 'huge': huge_add(n)
        return ('large', h)
    def huge_add(n):
        nonlocal huge; huge += n
    longs = [(s_ := size(), alloc(s_)) for _ in range(LONG_SLOTS)]
    shorts = [(s_ := size(), alloc(s_)) for _ in range(SHORT_SLOTS)]
    def free(x):
        nonlocal huge
        n, (kind, h) = x
        if kind == 'large':
            if isinstance(h, tuple) and h[0] == 'huge': huge -= n
            design.free(h)
    op = lc = sc = 0; samples = []
    for i in range(ops):
        n = size(); op += 1
        if op == LONG_EVERY:
            op = 0; free(longs[lc]); longs[lc] = (n, alloc(n)); lc = (lc + 1) % LONG_SLOTS
        else:
            free(shorts[sc]); shorts[sc] = (n, alloc(n)); sc = (sc + 1) % SHORT_SLOTS
        if i % 5000 == 0 and i > 50000:
            live = sum(x[0] for x in longs + shorts)
            small = sum(x[1][1] for x in longs + shorts if x[1][0] == 'small')
            samples.append((design.used() + small + huge) / live)
    samples.sort()
    return samples[len(samples)//2], samples[-1]

print("bump chunks             median %.2fx max %.2fx" % run(Bump()))
for ch, pg in ((1 << 20, 8192), (2 << 20, 8192), (2 << 20, 16384), (4 << 20, 16384), (4 << 20, 32768), (8 << 20, 32768)):
    print("runs chunk %4d KiB page %2d KiB: median %.2fx max %.2fx" % ((ch >> 10, pg >> 10) + run(Runs(ch, pg))))
for mode in ('first', 'best', 'fullest'):
    for spare_div in (None, 8, 4):
        print("runs 1 MiB, %-7s fit, spares %-8s median %.2fx max %.2fx" % ((mode, 'one' if spare_div is None else
              '1/%d' % spare_div) + run(Placed(mode, spare_div), ops=200_000)))

