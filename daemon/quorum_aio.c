/*
 * quorum_aio.c: C-Raft's Linux AIO contexts ended off the loop thread
 * (quorum_aio.h).
 *
 * C-Raft writes each Raft log segment through an AIO context of its own and
 * ends it with io_destroy() when it closes the segment, in the loop thread.
 * io_destroy() returns only once the kernel has let the context go, after
 * RCU grace periods: 25 to 40 ms on the test machine, idle or not, during
 * which the monitor answers nobody (BENCHMARKS.md, "the Raft log's segment
 * closes").  By then C-Raft has waited for every write on the context and
 * closed the file, and it ignores what io_destroy() returns.
 *
 * The engine makes the call through syscall(3), so mapmond defines
 * syscall() itself: the dynamic linker binds a library's calls to the
 * executable's definition before the C library's.  An io_destroy() of a
 * live context is handed to a thread of its own that makes the call while
 * the loop goes on (quorum_aio_drain() joins the threads when the quorum
 * closes); every other call goes to the C library's syscall() as it
 * came, its six argument registers passed through (the kernel reads as
 * many as the call takes).  A context that is not live is refused here, as
 * the kernel would (EINVAL); when no thread can be made, or
 * QUORUM_AIO_THREADS are still at work, the call is made in place.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "daemon/quorum_aio.h"

/* Contexts being ended at once, at most (one per closed segment). */
#define QUORUM_AIO_THREADS 8

typedef long quorum_aio_syscall_fn(long, ...);

/*
 * A thread per context being ended.  They are joined, not detached: a
 * thread still in io_destroy() when the process exits is one the leak
 * checker cannot stop, and one a clean shutdown has left behind.  A slot is
 * FREE, RUNNING, or DONE until the next hand-over or quorum_aio_drain()
 * joins it.
 */
enum { QUORUM_AIO_FREE, QUORUM_AIO_RUNNING, QUORUM_AIO_DONE };

struct quorum_aio_slot {
	pthread_t thread;
	long ctx;
	atomic_int state;
};

static pthread_mutex_t quorum_aio_lock = PTHREAD_MUTEX_INITIALIZER;
static struct quorum_aio_slot quorum_aio_slots[QUORUM_AIO_THREADS];
static atomic_ullong quorum_aio_deferred;

static quorum_aio_syscall_fn *
quorum_aio_libc(void)
{
	static _Atomic(quorum_aio_syscall_fn *) libc;
	quorum_aio_syscall_fn *fn;
	void *sym;

	if ((fn = atomic_load(&libc)) == NULL) {
		/* The C library's is always there: without it, nothing runs. */
		if ((sym = dlsym(RTLD_NEXT, "syscall")) == NULL)
			abort();
		*(void **)&fn = sym;
		atomic_store(&libc, fn);
	}
	return fn;
}

/*
 * Looked up before main(), so that a syscall() made later never calls
 * dlsym() first (not async-signal-safe, as syscall() is).
 */
static void __attribute__((constructor)) quorum_aio_init(void)
{
	(void)quorum_aio_libc();
}

static void *
quorum_aio_destroy_run(void *arg)
{
	struct quorum_aio_slot *slot = arg;

	quorum_aio_libc()(SYS_io_destroy, slot->ctx);
	atomic_store(&slot->state, QUORUM_AIO_DONE);
	return NULL;
}

/* 0 when ctx was handed to a thread; -1 when the caller must end it. */
static int
quorum_aio_defer(long ctx)
{
	struct quorum_aio_slot *slot, *free_slot = NULL;
	size_t i;
	int rc;

	pthread_mutex_lock(&quorum_aio_lock);
	for (i = 0; i < QUORUM_AIO_THREADS; i++) {
		slot = &quorum_aio_slots[i];
		if (atomic_load(&slot->state) == QUORUM_AIO_DONE) {
			/* It has made its call: the join is at once. */
			pthread_join(slot->thread, NULL);
			atomic_store(&slot->state, QUORUM_AIO_FREE);
		}
		if (free_slot == NULL &&
		    atomic_load(&slot->state) == QUORUM_AIO_FREE)
			free_slot = slot;
	}
	rc = -1;
	if (free_slot != NULL) {
		free_slot->ctx = ctx;
		atomic_store(&free_slot->state, QUORUM_AIO_RUNNING);
		if (pthread_create(&free_slot->thread, NULL,
			quorum_aio_destroy_run, free_slot) == 0) {
			atomic_fetch_add(&quorum_aio_deferred, 1);
			rc = 0;
		} else
			atomic_store(&free_slot->state, QUORUM_AIO_FREE);
	}
	pthread_mutex_unlock(&quorum_aio_lock);
	return rc;
}

void
quorum_aio_drain(void)
{
	struct quorum_aio_slot *slot;
	size_t i;

	pthread_mutex_lock(&quorum_aio_lock);
	for (i = 0; i < QUORUM_AIO_THREADS; i++) {
		slot = &quorum_aio_slots[i];
		if (atomic_load(&slot->state) != QUORUM_AIO_FREE) {
			pthread_join(slot->thread, NULL);
			atomic_store(&slot->state, QUORUM_AIO_FREE);
		}
	}
	pthread_mutex_unlock(&quorum_aio_lock);
}

long
syscall(long number, ...)
{
	va_list ap;
	long a[6];
	int i;

	va_start(ap, number);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);

	/*
	 * Whether the context is live, without waiting: io_getevents() for
	 * none answers 0 for a live one, EINVAL otherwise.
	 */
	if (number == SYS_io_destroy &&
	    quorum_aio_libc()(SYS_io_getevents, a[0], 0L, 0L, 0L, 0L) == 0 &&
	    quorum_aio_defer(a[0]) == 0)
		return 0;
	return quorum_aio_libc()(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

unsigned long long
quorum_aio_deferred_total(void)
{
	return atomic_load(&quorum_aio_deferred);
}
