#include "allocation_counter.h"

#include <errno.h>
#include <stddef.h>

/* glibc's own allocator, under the names it exports for allocators that wrap it. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Thread_local int counting;
static _Thread_local long allocations;

void echolab_allocations_begin(void) {
    allocations = 0;
    counting = 1;
}

long echolab_allocations_end(void) {
    counting = 0;
    return allocations;
}

void *malloc(size_t size) {
    if (counting) allocations += 1;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    if (counting) allocations += 1;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    if (counting) allocations += 1;
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    if (counting) allocations += 1;
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    if (counting) allocations += 1;
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (counting) allocations += 1;
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}
