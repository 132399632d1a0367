/*
 * store_backend.h: the interface between the generic store layer (store.c)
 * and its backends, included only by the .c files of store/.  The
 * conventions of store/store.h hold here too.
 */
#ifndef STORE_BACKEND_H
#define STORE_BACKEND_H

#include "store/store.h"

/*
 * Each backend is a const struct store_backend listed in store.c's table.
 * A backend keeps its state in an opaque handle; the generic layer
 * (store.c) does the lock, the format record, argument checks and
 * messages' common part, then calls these members.  Every member that
 * fails returns a STORE_E_* value and sets *cause (if not NULL) to a
 * message naming the path; none sets a cause for STORE_NOTFOUND.
 */
struct store_backend {
	/* The name in [store] backend. */
	const char *name;
	/* A file the backend always keeps in its directory (recognition). */
	const char *marker;

	/*
	 * Open (create != 0: create a new, empty one) the backend's files in
	 * directory path, which exists and is locked.  Returns 0 and sets
	 * *handle.
	 */
	int (*open)(const char *path, const struct store_options *opts,
	    int create, void **handle, char **cause);
	/* Close the handle; every iterator is already freed. */
	void (*close)(void *handle);

	/*
	 * Look key up: 0 with *val (malloc'd, never NULL) and *vlen,
	 * STORE_NOTFOUND, or an error.  Callable from any thread while
	 * another commits.
	 */
	int (*get)(void *handle, const void *key, size_t klen, void **val,
	    size_t *vlen, char **cause);

	/*
	 * Apply a batch (already checked) atomically and, with sync =
	 * commit, durably.  Only one commit runs at a time per handle.
	 */
	int (*commit)(void *handle, const struct store_batch *b,
	    char **cause);

	/*
	 * A new iterator over a consistent snapshot, positioned before lo
	 * (NULL or lolen 0: the first key).  The generic layer stops at hi.
	 */
	int (*iter_new)(void *handle, const void *lo, size_t lolen,
	    void **ith, char **cause);
	/*
	 * The next record in key order: 1 with pointers valid until the
	 * next call, 0 at the end, or an error.
	 */
	int (*iter_next)(void *ith, const void **key, size_t *klen,
	    const void **val, size_t *vlen, char **cause);
	void (*iter_free)(void *ith);

	/* Fill the backend's part of *st (records, map, text). */
	int (*stat)(void *handle, struct store_stats *st, char **cause);

	/* Compact lo <= k < hi (NULL bounds: open ends). */
	int (*compact)(void *handle, const void *lo, size_t lolen,
	    const void *hi, size_t hilen, char **cause);

	/*
	 * Optional (NULL: STORE_E_NOTSUP), for a backend whose files keep
	 * their largest size: write a compacted copy of every record into
	 * the existing empty directory dir, synced; then swap: put that
	 * copy in place of the handle's files atomically (the directory
	 * synced) and go on with it, refusing when the store was written
	 * after the copy.  store.c removes dir afterwards.
	 */
	int (*compact_copy)(void *handle, const char *dir, char **cause);
	int (*swap)(void *handle, const char *dir, char **cause);
};

extern const struct store_backend store_lmdb_backend;
extern const struct store_backend store_leveldb_backend;

/* Walking a batch, for backends: the operations in order. */
enum store_op_type {
	STORE_OP_PUT,
	STORE_OP_DELETE,
	STORE_OP_DELETE_RANGE,
};
struct store_op {
	enum store_op_type type;
	const uint8_t *key;	/* put, delete; range: lo (NULL: first) */
	size_t klen;
	const uint8_t *val;	/* put; range: hi (NULL: last) */
	size_t vlen;
};
/*
 * The i-th operation (i < store_batch_count()) into *op.  A value written
 * at commit (store_batch_put_fn) is written here, into a buffer of the
 * batch: op->val is then valid until the next store_batch_op() call on
 * that batch, so a batch is walked by one thread at a time.
 */
void store_batch_op(const struct store_batch *b, size_t i,
    struct store_op *op);
/*
 * The same without the value of a put (op->val NULL, op->vlen its size):
 * for walks that need only the keys (and a range's bounds), so that no
 * value is written for them.
 */
void store_batch_op_key(const struct store_batch *b, size_t i,
    struct store_op *op);

#ifdef STORE_TEST_HOOKS
/*
 * For the test hooks of store/store_test.h, built only into
 * store/libstore_test.a: a struct store around a backend's handle with no
 * lock of its own (the fault wrapper; store_close() closes the handle),
 * and the handle of a store of backend be (NULL when store is NULL or of
 * another backend).
 */
struct store *store_new_handle(const struct store_backend *be, void *handle,
    const char *path);
void *store_get_handle(const struct store *store,
    const struct store_backend *be);
#endif

#endif /* STORE_BACKEND_H */
