#pragma once
// Replaces the global operator new/delete and malloc of the test executable that includes this
// header (once, in one file) with versions that count allocations, so a test can check that a step
// of an integrator never touches the heap: `g_allocations` must not change across the steps.
// malloc is counted too: Eigen allocates its runtime-sized vectors and matrices (and the temporaries
// of an expression it cannot evaluate in place) with std::malloc, not operator new. glibc lets an
// executable define malloc and reach its own as __libc_malloc; free stays glibc's.
#include <atomic>
#include <cstdlib>
#include <new>

namespace {
constinit std::atomic<long> g_allocations{0};
}

#ifndef MECHINT_COUNT_OPERATOR_NEW_ONLY
extern "C" void* __libc_malloc(std::size_t size);
extern "C" void* malloc(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}

void* operator new(std::size_t size) {  // counted by malloc
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
#else
// Only operator new is counted (Eigen's own allocations are not seen): for a test whose steps are
// known to reach Eigen's heap (tests/test_tangent_map.cpp says where).
void* operator new(std::size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
#endif
void* operator new[](std::size_t size) { return operator new(size); }
// operator new above allocates with malloc, so free is its deallocation; GCC pairs new with delete by
// name and, where it inlines these, warns at every delete of the test (-Wmismatched-new-delete).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop
