/*
 * notify_listen.c: a stand-in for systemd's end of NOTIFY_SOCKET, for the
 * ops tests.
 *
 *	notify_listen SOCKET OUT [SECONDS]
 *
 * Binds a datagram socket at the path SOCKET and appends every message
 * received to OUT, one line per NAME=VALUE, each prefixed with the
 * CLOCK_MONOTONIC time of arrival in microseconds and a blank:
 *
 *	123456789 READY=1
 *
 * Each line is written and flushed at once, so a script can poll OUT.
 * Exits 0 on SIGTERM, or after SECONDS (default 60) as a safety net.  On
 * the first READY=1 it also runs the command in $NOTIFY_ON_READY, if set,
 * with sh -c, and records its exit status as "<usec> ON_READY=<status>"
 * before reading further messages: the test of "READY=1 only once the
 * daemon answers" runs a client there, while the daemon has just said it
 * is ready.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t notify_listen_done;

static void
notify_listen_term(int sig)
{
	(void)sig;
	notify_listen_done = 1;
}

static unsigned long long
notify_listen_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000ULL +
	    (unsigned long long)ts.tv_nsec / 1000;
}

int
main(int argc, char **argv)
{
	struct sockaddr_un sun;
	struct sigaction sa;
	char buf[4096], *line, *next;
	const char *on_ready;
	unsigned long long t;
	FILE *out;
	ssize_t n;
	int fd, seconds = 60, readied = 0, st;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: notify_listen SOCKET OUT [SECONDS]\n");
		return 2;
	}
	if (argc == 4)
		seconds = atoi(argv[3]);
	if (strlen(argv[1]) >= sizeof sun.sun_path) {
		fprintf(stderr, "notify_listen: socket path too long\n");
		return 2;
	}
	if ((out = fopen(argv[2], "a")) == NULL) {
		fprintf(stderr, "notify_listen: %s: %s\n", argv[2],
		    strerror(errno));
		return 1;
	}
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, argv[1]);
	(void)unlink(argv[1]);
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1 ||
	    bind(fd, (struct sockaddr *)&sun, sizeof sun) == -1) {
		fprintf(stderr, "notify_listen: %s: %s\n", argv[1],
		    strerror(errno));
		return 1;
	}

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = notify_listen_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	alarm((unsigned)seconds);
	on_ready = getenv("NOTIFY_ON_READY");

	while (!notify_listen_done) {
		n = recv(fd, buf, sizeof buf - 1, 0);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "notify_listen: recv: %s\n",
			    strerror(errno));
			return 1;
		}
		t = notify_listen_now();
		buf[n] = '\0';
		for (line = buf; line != NULL && *line != '\0'; line = next) {
			if ((next = strchr(line, '\n')) != NULL)
				*next++ = '\0';
			fprintf(out, "%llu %s\n", t, line);
			if (strcmp(line, "READY=1") == 0 && !readied &&
			    on_ready != NULL && *on_ready != '\0') {
				readied = 1;
				fflush(out);
				st = system(on_ready);
				fprintf(out, "%llu ON_READY=%d\n",
				    notify_listen_now(), WIFEXITED(st) ?
				    WEXITSTATUS(st) : 128);
			}
		}
		fflush(out);
	}
	fclose(out);
	close(fd);
	(void)unlink(argv[1]);
	return 0;
}
