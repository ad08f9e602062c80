#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

/// glibc's M_MMAP_THRESHOLD, which Swift's Glibc module leaves out: allocations of `bytes` or more
/// are mapped on their own and unmapped when freed. Setting it also stops glibc raising it.
/// Nothing where the C library has no such setting.
static inline void fleetfence_map_allocations_from(int bytes) {
#ifdef M_MMAP_THRESHOLD
    mallopt(M_MMAP_THRESHOLD, bytes);
#endif
}

/// Bytes the allocator holds free in its heaps (glibc's `mallinfo2`), -1 where it cannot tell.
static inline long fleetfence_heap_free_bytes(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return (long)info.fordblks;
#else
    return -1;
#endif
}
