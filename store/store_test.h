/*
 * store_test.h: the store's test hooks, for tests only.  They are built
 * into store/libstore_test.a (the store's sources compiled again with
 * -DSTORE_TEST_HOOKS, and store_fault.c), which only test programs link
 * instead of store/libstore.a; the production library has none of them.
 */
#ifndef STORE_TEST_H
#define STORE_TEST_H

#include "store/store.h"

/*
 * Fault injection (store_fault.c), for tests of what the monitor does when
 * the disk fails.  store_fault_wrap() takes over store and returns a store
 * that passes everything through; closing it closes the inner one.
 * store_fault_arm() makes the next count commits (count < 0: every commit
 * until disarmed with count 0) fail with the error kind (STORE_E_NOSPC,
 * STORE_E_IO, STORE_E_MAPFULL) without touching the inner store.  The
 * wrapper also records the largest value put and the largest value read
 * (get or iterator).  Calling the arm/query functions on a store that is
 * not a wrapper is STORE_E_INVAL.
 */
struct store *store_fault_wrap(struct store *store);
int store_fault_arm(struct store *store, int error, int count);
/*
 * While held (on nonzero), every commit waits before it starts, as on a
 * disk that does not answer, until the hold is let go (on 0).
 */
int store_fault_hold(struct store *store, int on);
int store_fault_max_value_sizes(struct store *store, size_t *max_put,
    size_t *max_read);
/* Number of commits failed on purpose so far. */
int store_fault_failed(struct store *store, uint64_t *failed);

/*
 * Turn the automatic growth of an open LMDB store's map on or off (as
 * store_options.lmdb.grow at open), for tests of a full map: growth off
 * until "space returns".  Safe while another thread commits; the next
 * full map sees the new setting.  STORE_E_INVAL when store is not an LMDB
 * store (a fault wrapper included).
 */
int store_lmdb_set_grow(struct store *store, int grow);

#endif /* STORE_TEST_H */
