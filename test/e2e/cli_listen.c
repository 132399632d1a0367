/*
 * cli_listen.c: a TCP listener on loopback that never answers, for the
 * CLI's timeout test.  It binds 127.0.0.1 on a free port, prints the port
 * on stdout, and sleeps until killed: the kernel completes connections
 * into the backlog, so a client connects and then waits for a HELLO that
 * never comes.
 *
 *	cli_listen		print the port, then wait
 *	cli_listen -p		print a free port and exit (nothing listens
 *				there afterwards: a refused connection)
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	int fd;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1) {
		perror("cli_listen: socket");
		return 1;
	}
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof sin) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1) {
		perror("cli_listen: bind");
		return 1;
	}
	if (argc > 1 && strcmp(argv[1], "-p") == 0) {
		printf("%u\n", (unsigned)ntohs(sin.sin_port));
		close(fd);
		return 0;
	}
	if (listen(fd, 16) == -1) {
		perror("cli_listen: listen");
		return 1;
	}
	printf("%u\n", (unsigned)ntohs(sin.sin_port));
	fflush(stdout);
	for (;;)
		pause();
}
