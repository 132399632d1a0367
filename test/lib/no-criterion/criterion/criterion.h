/*
 * Stands in for Criterion's header where configure found no Criterion:
 * the daemon and the tools build without it, and `make check' stops here
 * with one line saying what to install.
 */
#error "make check needs Criterion: install the Debian package libcriterion-dev (apt-get install libcriterion-dev) and run configure again"
