/*
 * bench_plot.h: the cold start plot, time against PGs per set-up: through
 * gnuplot when it is installed, else drawn as SVG here.
 */
#ifndef BENCH_PLOT_H
#define BENCH_PLOT_H

#include <stddef.h>

/*
 * One line of the plot: y[i] at x[i], i < n (y <= 0: no point), drawn in
 * colour number colour (series of one set-up share it), dashed or not.
 */
struct bench_plot_series {
	const char *name;
	size_t n;
	const double *x;
	const double *y;
	int colour;
	int dashed;
};

/*
 * Write the data (DIR/BASE.dat) and a gnuplot script (DIR/BASE.gp) for the
 * series, then draw DIR/BASE.svg: with gnuplot when it is on the PATH,
 * else with the small SVG writer of this file.  title and the axis labels
 * go on the plot.  Returns 1 when gnuplot drew it, 0 when the built-in
 * writer did, -1 with *cause when a file could not be written.
 */
int bench_plot(const char *dir, const char *base, const char *title,
    const char *xlabel, const char *ylabel,
    const struct bench_plot_series *s, size_t ns, char **cause);

#endif /* BENCH_PLOT_H */
