# Simulation of AllocPattern API_GATEWAY on one magazine (allocator-bench AllocPatternBenchmark: maxLive slots, each
# operation releases the buffer in the next slot of shuffled rounds and allocates the next size of a seeded
# log-normal table there). Only sizes up to 32 KiB (the size classes) are modelled; the 0.3% above go to page runs.
#
# It splits used/live into three factors:
#   rounding    = segment bytes / requested bytes (the size-class table)
#   occupancy   = chunk bytes / segment bytes (a chunk goes back only when all its segments are free)
#   reuse pool  = (chunk bytes + empty chunks kept in the reuse pool) / chunk bytes
# and compares what could change them: which partial chunk to refill from, segments per chunk, finer classes, and
# page runs for the middle sizes (sizes above a threshold cut as runs of small pages from chunks shared by all of
# them, first fit, one empty chunk kept spare; "rounding" then counts the whole pages).
# Used for docs/design.md ("Size classes": why API_GATEWAY stays near 1.4x-1.5x its live bytes).
# Run: python3 docs/sims/size_class_footprint.py   (about 5 minutes; prints one line per variant)
import math
import random

CLASSES = [16, 32, 48, 64, 96, 128, 192, 256, 320, 384, 512, 640, 768, 1024, 1280, 1536, 2048, 2304, 2560, 3072,
           4096, 4352, 5120, 6144, 8192, 8704, 10240, 12288, 16384, 16896, 20480, 24576, 32768]
MIN_CHUNK, MAX_CHUNK = 64 * 1024, 512 * 1024
REUSE_BUDGET = 16 << 20
TABLE_LENGTH = 65521


def pow2_chunk(wanted):
    size = 1 << (wanted - 1).bit_length()
    return max(MIN_CHUNK, min(MAX_CHUNK, size))


def api_gateway_size(rnd):
    u1 = 1 - rnd.random()
    u2 = rnd.random()
    gaussian = math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)
    return int(max(8, min(1 << 20, round(math.exp(7.6 + gaussian)))))


class Chunk:
    __slots__ = ('size_class', 'bytes', 'segments', 'free', 'current', 'seq')


class PageRuns:
    """Sizes above `threshold` as runs of `page`-byte pages in `chunk_bytes` chunks shared by all those sizes."""

    def __init__(self, threshold, page, chunk_bytes):
        self.threshold, self.page, self.chunk_bytes = threshold, page, chunk_bytes
        self.pages = chunk_bytes // page
        self.chunks = []  # each a bytearray of used flags, in the order made: first fit walks them in turn
        self.free_pages = {}
        self.spare = None

    def allocate(self, size, take_slab):
        """Returns (chunk, first page, page count); take_slab(bytes) accounts for a chunk taken from the pool."""
        n = (size + self.page - 1) // self.page
        run = bytes(n)
        for used in self.chunks:
            if self.free_pages[id(used)] < n:
                continue
            start = used.find(run)  # the first run of n free pages
            if start >= 0:
                used[start:start + n] = b'\x01' * n
                self.free_pages[id(used)] -= n
                return used, start, n
        if self.spare is not None:
            used, self.spare = self.spare, None
        else:
            used = bytearray(self.pages)
            take_slab(self.chunk_bytes)
        used[0:n] = b'\x01' * n
        self.chunks.append(used)
        self.free_pages[id(used)] = self.pages - n
        return used, 0, n

    def release(self, used, start, n, give_slab):
        used[start:start + n] = bytes(n)
        self.free_pages[id(used)] += n
        if self.free_pages[id(used)] == self.pages:
            self.chunks.remove(used)
            del self.free_pages[id(used)]
            if self.spare is None:
                self.spare = used
            else:
                give_slab(self.chunk_bytes)


def simulate(classes, segments_per_chunk, policy, max_live, ops=1_500_000, seed=1, page_runs=None):
    """Returns (rounding, occupancy, pool factor, used/live, refills per allocation, share of allocations on page
    runs), medians over the run. With page_runs (a PageRuns), sizes above its threshold go there."""
    rnd = random.Random(seed)
    table = [api_gateway_size(rnd) for _ in range(TABLE_LENGTH)]
    class_of = {}

    def size_class(size):
        if size > classes[-1] or (page_runs is not None and size > page_runs.threshold):
            return None
        if size not in class_of:
            class_of[size] = next(i for i, c in enumerate(classes) if c >= size)
        return class_of[size]

    current = [None] * len(classes)
    partial = [[] for _ in classes]
    chunk_count = [0] * len(classes)
    pool = {}
    totals = {'chunk': 0, 'pool': 0, 'refills': 0, 'allocs': 0, 'seq': 0, 'runs': 0}

    def take_slab(size):
        if pool.get(size, 0):
            pool[size] -= 1
            totals['pool'] -= size
        totals['chunk'] += size

    def give_slab(size):
        totals['chunk'] -= size
        if totals['pool'] + size <= REUSE_BUDGET:
            pool[size] = pool.get(size, 0) + 1
            totals['pool'] += size

    def new_chunk(c):
        wanted = classes[c] * (4 if chunk_count[c] == 0 else segments_per_chunk)  # first chunk: 4 segments
        chunk = Chunk()
        chunk.bytes = pow2_chunk(wanted)
        take_slab(chunk.bytes)
        chunk.size_class = c
        chunk.segments = chunk.free = chunk.bytes // classes[c]
        totals['seq'] += 1
        chunk.seq = totals['seq']
        chunk_count[c] += 1
        return chunk

    def pick_partial(candidates):
        if policy == 'oldest':  # magalloc: the partial chunk that has waited longest
            return candidates.pop(0)
        if policy == 'fullest':  # fewest free segments: the emptiest chunks drain
            return candidates.pop(min(range(len(candidates)), key=lambda j: candidates[j].free))
        if policy == 'first-made':  # lowest address first, as jemalloc picks slabs
            return candidates.pop(min(range(len(candidates)), key=lambda j: candidates[j].seq))
        raise ValueError(policy)

    def allocate(c):
        totals['allocs'] += 1
        chunk = current[c]
        if chunk is None or chunk.free == 0:
            totals['refills'] += 1
            if chunk is not None:
                chunk.current = False
            chunk = pick_partial(partial[c]) if partial[c] else new_chunk(c)
            chunk.current = True
            current[c] = chunk
        chunk.free -= 1
        return chunk

    def release(chunk):
        chunk.free += 1
        if chunk.current:
            return
        if chunk.free == chunk.segments:  # entirely free: retire to the reuse pool (or the system)
            partial[chunk.size_class].remove(chunk)
            chunk_count[chunk.size_class] -= 1
            give_slab(chunk.bytes)
        elif chunk.free == 1:
            partial[chunk.size_class].append(chunk)

    order_rnd = random.Random(seed + max_live)
    order = []
    for _ in range(max(1, TABLE_LENGTH // max_live)):
        permutation = list(range(max_live))
        order_rnd.shuffle(permutation)
        order += permutation
    def place(size):
        """A size class's chunk, a page run (chunk flags, first page, pages), or None (above 32 KiB: not modelled)."""
        c = size_class(size)
        if c is not None:
            return allocate(c)
        if page_runs is not None and size <= classes[-1]:
            totals['allocs'] += 1
            totals['runs'] += 1
            return page_runs.allocate(size, take_slab)
        return None

    def free(owner):
        if isinstance(owner, Chunk):
            release(owner)
        elif owner is not None:
            page_runs.release(*owner, give_slab)

    def held(owner):
        return classes[owner.size_class] if isinstance(owner, Chunk) else owner[2] * page_runs.page

    cursor = 0
    sizes = [0] * max_live
    owners = [None] * max_live
    for slot in range(max_live):
        sizes[slot] = table[cursor]
        cursor += 1
        owners[slot] = place(sizes[slot])
    samples = []
    totals['refills'] = totals['allocs'] = totals['runs'] = 0
    for op in range(ops):
        slot = order[op % len(order)]
        free(owners[slot])
        sizes[slot] = table[cursor]
        cursor = (cursor + 1) % TABLE_LENGTH
        owners[slot] = place(sizes[slot])
        if op % 50_000 == 0 and op > ops // 3:
            live = sum(s for s, o in zip(sizes, owners) if o is not None)
            segment_bytes = sum(held(o) for o in owners if o is not None)
            samples.append((segment_bytes / live, totals['chunk'] / segment_bytes,
                            (totals['chunk'] + totals['pool']) / totals['chunk'],
                            (totals['chunk'] + totals['pool']) / live))
    medians = [sorted(column)[len(column) // 2] for column in zip(*samples)]
    return medians + [totals['refills'] / totals['allocs'], totals['runs'] / totals['allocs']]


FINER = sorted(set(CLASSES + [2816, 3584, 4864, 5632, 7168, 9216, 11264, 14336]))

if __name__ == '__main__':
    print('live   variant                                    rounding  occupancy  reuse pool  used/live  refills/alloc'
          '  on page runs')
    for max_live in (8192, 1024):
        for name, classes, segments, policy, runs in [
                ('magalloc: 16 segments, oldest partial', CLASSES, 16, 'oldest', None),
                ('8 segments, oldest partial', CLASSES, 8, 'oldest', None),
                ('16 segments, fullest partial', CLASSES, 16, 'fullest', None),
                ('16 segments, first-made partial', CLASSES, 16, 'first-made', None),
                ('16 segments, 8 finer classes 2-16 KiB', FINER, 16, 'oldest', None),
                ('page runs above 16 KiB (1 KiB pages)', CLASSES, 16, 'oldest', (16384, 1024, 256 << 10)),
                ('page runs above 8 KiB (1 KiB pages)', CLASSES, 16, 'oldest', (8192, 1024, 256 << 10)),
                ('page runs above 4 KiB (512 B pages)', CLASSES, 16, 'oldest', (4096, 512, 256 << 10)),
                ('page runs above 2 KiB (256 B pages)', CLASSES, 16, 'oldest', (2048, 256, 256 << 10))]:
            rounding, occupancy, pooled, used, refills, on_runs = simulate(
                classes, segments, policy, max_live, page_runs=PageRuns(*runs) if runs else None)
            print(f'{max_live:5d}  {name:42s} {rounding:8.3f}  {occupancy:9.3f}  {pooled:10.3f}  {used:9.3f}'
                  f'  {refills:13.3f}  {on_runs:12.3f}', flush=True)
