#ifndef CPREFETCH_H
#define CPREFETCH_H
/// A hint to start loading the cache line at `address`: unlike a load, it never stalls the CPU.
static inline void cprefetch(const void *address) { __builtin_prefetch(address, 0, 3); }
#endif
