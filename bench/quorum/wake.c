/*
 * wake.c: how soon a thread that sleeps most of the time gets a core, for
 * BENCHMARKS.md "What the 5 ms wants": run while `mapmon-bench ingest
 * --mons 3` loads the machine.  Two measurements, one after the other:
 *
 *   echo   one thread echoes a byte on a loopback TCP connection (its
 *          port given), another sends one every 10 ms and times the
 *          round trip: the floor under a `status` answered by an idle
 *          thread;
 *   timer  a thread woken every 10 ms by clock_nanosleep(): how late.
 *
 * Built by hand:  gcc -O2 -pthread -o wake bench/quorum/wake.c
 *                 ./wake PORT N    (N samples of each; prints p50, p99, max)
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int listen_fd;

static long
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int
cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

static void
report(const char *what, long *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_long);
	printf("%s: p50 %.3f p99 %.3f max %.3f ms (%d samples)\n", what,
	    v[n / 2] / 1e6, v[n * 99 / 100] / 1e6, v[n - 1] / 1e6, n);
}

static void *
echo_serve(void *arg)
{
	int c, one = 1;
	char b;

	(void)arg;
	if ((c = accept(listen_fd, NULL, NULL)) == -1)
		return NULL;
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	while (read(c, &b, 1) == 1 && write(c, &b, 1) == 1)
		;
	close(c);
	return NULL;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sa = { 0 };
	struct timespec next;
	pthread_t server;
	int n, i, c, one = 1;
	long *v, t0;
	char b = 'x';

	if (argc != 3 || (n = atoi(argv[2])) < 100) {
		fprintf(stderr, "usage: wake PORT N (N >= 100)\n");
		return 2;
	}
	if ((v = calloc((size_t)n, sizeof *v)) == NULL)
		return 1;
	sa.sin_family = AF_INET;
	sa.sin_port = htons((unsigned short)atoi(argv[1]));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(listen_fd, (struct sockaddr *)&sa, sizeof sa) == -1 ||
	    listen(listen_fd, 1) == -1) {
		perror("wake: bind");
		return 1;
	}
	pthread_create(&server, NULL, echo_serve, NULL);
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(c, (struct sockaddr *)&sa, sizeof sa) == -1) {
		perror("wake: connect");
		return 1;
	}
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	for (i = 0; i < n; i++) {
		usleep(10000);
		t0 = now_ns();
		if (write(c, &b, 1) != 1 || read(c, &b, 1) != 1) {
			perror("wake: echo");
			return 1;
		}
		v[i] = now_ns() - t0;
	}
	report("echo round trip", v, n);
	close(c);
	pthread_join(server, NULL);

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i < n; i++) {
		next.tv_nsec += 10000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		v[i] = now_ns() - (next.tv_sec * 1000000000L + next.tv_nsec);
	}
	report("timer lateness", v, n);
	free(v);
	return 0;
}
