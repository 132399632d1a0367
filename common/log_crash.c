/* log_crash.c: fatal(), fatalx() and the crash handlers; they dump the ring. */
#include "config.h"

#include <execinfo.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log_priv.h"

static int log_crashing;	/* atomic: the crash handler has begun */
static int log_dumped;		/* atomic: fatal() has dumped already */

/* Dumps to the target and to stderr if that is not the target. */
static void
log_crash_dump(void)
{
	int fd = log_target_fd();

	if (fd != -1)
		log_dump_recent(fd);
	log_dump_recent(STDERR_FILENO);
}

static mapmon_dead printflike(1, 0) void
log_vfatal(const char *fmt, va_list ap, int with_errno)
{
	log_vline(LOG_P_CRIT, fmt, ap, with_errno);
	if (!__atomic_exchange_n(&log_dumped, 1, __ATOMIC_ACQ_REL))
		log_crash_dump();
	abort();
}

void
fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vfatal(fmt, ap, 1);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vfatal(fmt, ap, 0);
}

/* Crashes. */

static const struct {
	int sig;
	const char *name;
} log_crash_signals[] = {
	{SIGSEGV, "SIGSEGV"},
	{SIGBUS, "SIGBUS"},
	{SIGFPE, "SIGFPE"},
	{SIGILL, "SIGILL"},
	{SIGABRT, "SIGABRT"},
};

/* A line about the signal, built without stdio. */
static void
log_crash_line(int fd, const char *name)
{
	char line[256];
	size_t n;

	n = log_gather_line_start(line, LOG_NOSUBSYS, 0);
	memcpy(line + n, "*** caught signal ", 18);
	n += 18;
	memcpy(line + n, name, strlen(name));
	n += strlen(name);
	memcpy(line + n, " ***\n", 5);
	n += 5;
	log_write_fd(fd, line, n);
}

/*
 * The stack of the faulting thread, one frame a line (the binary and an
 * offset that addr2line -e BINARY turns into a function and a line), so
 * that a crash seen once can be found.  backtrace() was called once at
 * install so that nothing is loaded here.
 */
static void
log_crash_backtrace(int fd)
{
	static const char head[] = "backtrace:\n";
	void *frames[64];
	int n;

	n = backtrace(frames, (int)nitems(frames));
	log_write_fd(fd, head, sizeof head - 1);
	backtrace_symbols_fd(frames, n, fd);
}

/*
 * Best effort, as in Ceph: formatting calls snprintf, which is not
 * async-signal-safe, but the process is dying and the dump is worth it.
 */
static void
log_crash(int sig)
{
	const char *name = "signal";
	size_t i;
	int fd;

	for (i = 0; i < nitems(log_crash_signals); i++) {
		if (log_crash_signals[i].sig == sig)
			name = log_crash_signals[i].name;
	}
	if (!__atomic_exchange_n(&log_crashing, 1, __ATOMIC_ACQ_REL)) {
		if ((fd = log_target_fd()) != -1) {
			log_crash_line(fd, name);
			log_crash_backtrace(fd);
		}
		log_crash_line(STDERR_FILENO, name);
		log_crash_backtrace(STDERR_FILENO);
		if (!__atomic_load_n(&log_dumped, __ATOMIC_ACQUIRE))
			log_crash_dump();
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void
log_install_crash_handlers(void)
{
	static char altstack[65536];
	struct sigaction sa;
	void *frame;
	stack_t ss;
	size_t i;

	/* Loads the unwinder now, not in a signal handler. */
	backtrace(&frame, 1);

	memset(&ss, 0, sizeof ss);
	ss.ss_sp = altstack;
	ss.ss_size = sizeof altstack;
	sigaltstack(&ss, NULL);

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = log_crash;
	sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < nitems(log_crash_signals); i++)
		sigaction(log_crash_signals[i].sig, &sa, NULL);
}
