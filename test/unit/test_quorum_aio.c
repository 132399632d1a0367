/*
 * test_quorum_aio.c: mapmond's syscall() (daemon/quorum_aio.c).  An
 * io_destroy() of a live AIO context goes to a thread, answers 0 at once,
 * and the context ends; one of no live context is refused as the kernel
 * refuses it; every other call passes through with its six arguments, its
 * result and its errno.  quorum_aio_drain() returns once every context
 * handed over has ended.
 */
#include "config.h"

#include <errno.h>
#include <linux/aio_abi.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "daemon/quorum_aio.h"

/* Whether ctx is a live AIO context (quorum_aio.c asks the same way). */
static int
live(aio_context_t ctx)
{
	return syscall(SYS_io_getevents, (long)ctx, 0L, 0L, 0L, 0L) == 0;
}

/* Whether ctx stopped being live within 10 s (some 30 ms in practice). */
static int
ended(aio_context_t ctx)
{
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 1000 && live(ctx); i++)
		nanosleep(&nap, NULL);
	return !live(ctx);
}

static aio_context_t
context_new(void)
{
	aio_context_t ctx = 0;

	if (syscall(SYS_io_setup, 1L, &ctx) == -1)
		cr_skip_test("io_setup: %s (C-Raft cannot write here either)",
		    strerror(errno));
	cr_assert(live(ctx));
	return ctx;
}

Test(quorum_aio, passes_other_calls_through)
{
	char buf[4] = "";
	int fds[2];
	void *p;

	cr_assert_eq(syscall(SYS_getpid), getpid());
	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(syscall(SYS_write, fds[1], "abc", 3L), 3);
	cr_assert_eq(read(fds[0], buf, 3), 3);
	cr_assert_str_eq(buf, "abc");
	close(fds[0]);
	close(fds[1]);
	errno = 0;
	cr_assert_eq(syscall(SYS_close, -1L), -1);
	cr_assert_eq(errno, EBADF);
	/* All six argument registers. */
	p = (void *)syscall(SYS_mmap, 0L, 8192L, (long)(PROT_READ | PROT_WRITE),
	    (long)(MAP_PRIVATE | MAP_ANONYMOUS), -1L, 0L);
	cr_assert_neq(p, MAP_FAILED);
	memset(p, 0x5a, 8192);
	cr_assert_eq(((unsigned char *)p)[8191], 0x5a);
	cr_assert_eq(munmap(p, 8192), 0);
}

Test(quorum_aio, io_destroy_goes_to_a_thread_and_the_context_ends)
{
	unsigned long long before = quorum_aio_deferred_total();
	aio_context_t ctx = context_new();

	cr_assert_eq(syscall(SYS_io_destroy, (long)ctx), 0);
	cr_assert_eq(quorum_aio_deferred_total(), before + 1);
	/* The thread ends it. */
	cr_assert(ended(ctx), "the context still lives after 10 s");
	/* Ended, it is no context to end again: the kernel's answer. */
	errno = 0;
	cr_assert_eq(syscall(SYS_io_destroy, (long)ctx), -1);
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(quorum_aio_deferred_total(), before + 1);
}

Test(quorum_aio, io_destroy_of_no_context_is_refused)
{
	unsigned long long before = quorum_aio_deferred_total();

	errno = 0;
	cr_assert_eq(syscall(SYS_io_destroy, 12345L), -1);
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(quorum_aio_deferred_total(), before);
}

Test(quorum_aio, many_contexts_all_end)
{
	aio_context_t ctx[32];
	size_t i, n = sizeof ctx / sizeof ctx[0];

	/* More at once than threads are allowed: the rest end in place. */
	for (i = 0; i < n; i++)
		ctx[i] = context_new();
	for (i = 0; i < n; i++)
		cr_assert_eq(syscall(SYS_io_destroy, (long)ctx[i]), 0);
	for (i = 0; i < n; i++)
		cr_assert(ended(ctx[i]), "context %zu still lives after 10 s",
		    i);
}

Test(quorum_aio, drain_returns_once_every_context_has_ended)
{
	aio_context_t ctx[4];
	size_t i, n = sizeof ctx / sizeof ctx[0];
	unsigned long long before = quorum_aio_deferred_total();

	for (i = 0; i < n; i++)
		ctx[i] = context_new();
	for (i = 0; i < n; i++)
		cr_assert_eq(syscall(SYS_io_destroy, (long)ctx[i]), 0);
	cr_assert_eq(quorum_aio_deferred_total(), before + n);
	quorum_aio_drain();
	/* Not waited for here: drained, every one is already gone. */
	for (i = 0; i < n; i++)
		cr_assert(!live(ctx[i]), "context %zu lives after the drain",
		    i);
	/* The slots are free again: the next one goes to a thread too. */
	ctx[0] = context_new();
	cr_assert_eq(syscall(SYS_io_destroy, (long)ctx[0]), 0);
	cr_assert_eq(quorum_aio_deferred_total(), before + n + 1);
	quorum_aio_drain();
	cr_assert(!live(ctx[0]));
}
