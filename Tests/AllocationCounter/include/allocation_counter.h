#ifndef ECHOLAB_ALLOCATION_COUNTER_H
#define ECHOLAB_ALLOCATION_COUNTER_H

/* Counts the heap allocations the calling thread makes between begin and end (malloc, calloc,
   realloc, and the aligned ones), so a test can assert that per-frame code allocates nothing.
   Linked into the test executable, these definitions stand in for the C library's for every
   library the process loaded (the Swift runtime's allocations go through them too); each
   forwards to the C library's own. Other threads are never counted. */
void echolab_allocations_begin(void);
long echolab_allocations_end(void);

#endif
