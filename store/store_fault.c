/*
 * store_fault.c: a wrapper backend that fails or holds commits on demand
 * (the fault injection of store/store_test.h); built only into
 * store/libstore_test.a.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "store/store_backend.h"
#include "store/store_test.h"

struct store_fault {
	struct store *inner;
	pthread_mutex_t lock;	/* armed state and maxima */
	pthread_cond_t cond;	/* the hold was let go */
	int held;		/* commits wait while it is set */
	int error;
	int count;		/* commits left to fail; < 0: all */
	uint64_t failed;
	size_t max_put;
	size_t max_read;
};

struct store_fault_iter {
	struct store_fault *f;
	struct store_iter *it;
};

static void
store_fault_read(struct store_fault *f, size_t vlen)
{
	pthread_mutex_lock(&f->lock);
	if (vlen > f->max_read)
		f->max_read = vlen;
	pthread_mutex_unlock(&f->lock);
}

/* A wrapper is made by store_fault_wrap(), never opened by name. */
static int
store_fault_open(const char *path, mapmon_unused const struct store_options *opts,
    mapmon_unused int create, mapmon_unused void **handle, char **cause)
{
	if (cause != NULL)
		xasprintf(cause, "%s: the fault wrapper cannot be opened by "
		    "name", path);
	return STORE_E_INVAL;
}

static void
store_fault_close(void *handle)
{
	struct store_fault *f = handle;

	store_close(f->inner);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cond);
	free(f);
}

static int
store_fault_get(void *handle, const void *key, size_t klen, void **val,
    size_t *vlen, char **cause)
{
	struct store_fault *f = handle;
	int r;

	r = store_get(f->inner, key, klen, val, vlen, cause);
	if (r == 0)
		store_fault_read(f, *vlen);
	return r;
}

static int
store_fault_commit(void *handle, const struct store_batch *b, char **cause)
{
	struct store_fault *f = handle;
	struct store_op op;
	size_t i, n = store_batch_count(b), max = 0;
	int error = 0;

	for (i = 0; i < n; i++) {
		store_batch_op(b, i, &op);
		if (op.type == STORE_OP_PUT && op.vlen > max)
			max = op.vlen;
	}
	pthread_mutex_lock(&f->lock);
	while (f->held)
		pthread_cond_wait(&f->cond, &f->lock);
	if (max > f->max_put)
		f->max_put = max;
	if (f->count != 0) {
		error = f->error;
		if (f->count > 0)
			f->count--;
		f->failed++;
	}
	pthread_mutex_unlock(&f->lock);
	if (error != 0) {
		if (cause != NULL)
			xasprintf(cause, "%s: commit: %s (injected fault)",
			    store_path(f->inner), store_strerror(error));
		return error;
	}
	return store_commit(f->inner, b, cause);
}

static int
store_fault_iter_new(void *handle, const void *lo, size_t lolen, void **ith,
    char **cause)
{
	struct store_fault *f = handle;
	struct store_fault_iter *fi;
	struct store_iter *it;

	if ((it = store_iter_new(f->inner, lo, lolen, NULL, 0, cause)) == NULL)
		return STORE_E_IO;
	fi = xcalloc(1, sizeof *fi);
	fi->f = f;
	fi->it = it;
	*ith = fi;
	return 0;
}

static int
store_fault_iter_next(void *ith, const void **key, size_t *klen,
    const void **val, size_t *vlen, char **cause)
{
	struct store_fault_iter *fi = ith;
	int r;

	r = store_iter_next(fi->it, key, klen, val, vlen);
	if (r == 1)
		store_fault_read(fi->f, *vlen);
	else if (r < 0 && cause != NULL && store_iter_cause(fi->it) != NULL)
		*cause = xstrdup(store_iter_cause(fi->it));
	return r;
}

static void
store_fault_iter_free(void *ith)
{
	struct store_fault_iter *fi = ith;

	store_iter_free(fi->it);
	free(fi);
}

static int
store_fault_stat(void *handle, struct store_stats *st, char **cause)
{
	struct store_fault *f = handle;

	return store_stat(f->inner, st, cause);
}

static int
store_fault_compact(void *handle, const void *lo, size_t lolen,
    const void *hi, size_t hilen, char **cause)
{
	struct store_fault *f = handle;

	return store_compact(f->inner, lo, lolen, hi, hilen, cause);
}

static const struct store_backend store_fault_backend = {
	.name = "fault",
	.marker = NULL,
	.open = store_fault_open,
	.close = store_fault_close,
	.get = store_fault_get,
	.commit = store_fault_commit,
	.iter_new = store_fault_iter_new,
	.iter_next = store_fault_iter_next,
	.iter_free = store_fault_iter_free,
	.stat = store_fault_stat,
	.compact = store_fault_compact,
};

struct store *
store_fault_wrap(struct store *store)
{
	struct store_fault *f;

	f = xcalloc(1, sizeof *f);
	f->inner = store;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	return store_new_handle(&store_fault_backend, f, store_path(store));
}

int
store_fault_arm(struct store *store, int error, int count)
{
	struct store_fault *f;

	if ((f = store_get_handle(store, &store_fault_backend)) == NULL)
		return STORE_E_INVAL;
	if (count != 0 && error >= 0)
		return STORE_E_INVAL;
	pthread_mutex_lock(&f->lock);
	f->error = error;
	f->count = count;
	pthread_mutex_unlock(&f->lock);
	return 0;
}

int
store_fault_hold(struct store *store, int on)
{
	struct store_fault *f;

	if ((f = store_get_handle(store, &store_fault_backend)) == NULL)
		return STORE_E_INVAL;
	pthread_mutex_lock(&f->lock);
	f->held = on != 0;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	return 0;
}

int
store_fault_max_value_sizes(struct store *store, size_t *max_put,
    size_t *max_read)
{
	struct store_fault *f;

	if ((f = store_get_handle(store, &store_fault_backend)) == NULL)
		return STORE_E_INVAL;
	pthread_mutex_lock(&f->lock);
	if (max_put != NULL)
		*max_put = f->max_put;
	if (max_read != NULL)
		*max_read = f->max_read;
	pthread_mutex_unlock(&f->lock);
	return 0;
}

int
store_fault_failed(struct store *store, uint64_t *failed)
{
	struct store_fault *f;

	if ((f = store_get_handle(store, &store_fault_backend)) == NULL)
		return STORE_E_INVAL;
	pthread_mutex_lock(&f->lock);
	*failed = f->failed;
	pthread_mutex_unlock(&f->lock);
	return 0;
}
