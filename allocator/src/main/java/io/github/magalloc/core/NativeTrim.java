package io.github.magalloc.core;

/**
 * What a pool does after it gave a direct slab's memory back to the C allocator: ask for a trim of the C heap, so
 * that the process's resident memory follows what magalloc holds (protocol 3b (resident memory)), or nothing.
 */
interface NativeTrim {
    /** Heap pools, and direct pools with {@code nativeTrimMillis} 0. */
    NativeTrim NONE = freedBytes -> { };

    /** Any thread, cold: {@code freedBytes} of direct memory went back to the C allocator. */
    void afterFree(long freedBytes);
}
