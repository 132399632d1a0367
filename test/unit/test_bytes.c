/* test_bytes.c: byte counts as the CLI, mapmon-store and health show them. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdint.h>

#include "common/bytes.h"

static const char *
fmt(uint64_t n)
{
	static char buf[BYTES_BUFSIZE];

	return bytes_format(n, buf, sizeof buf);
}

Test(bytes, whole_bytes_below_one_kib)
{
	cr_assert_str_eq(fmt(0), "0 B");
	cr_assert_str_eq(fmt(1), "1 B");
	cr_assert_str_eq(fmt(1023), "1023 B");
}

Test(bytes, one_decimal_below_ten_none_from_ten)
{
	cr_assert_str_eq(fmt(1024), "1.0 KiB");
	cr_assert_str_eq(fmt(1536), "1.5 KiB");
	cr_assert_str_eq(fmt(10 * 1024 - 1), "10.0 KiB");
	cr_assert_str_eq(fmt(10 * 1024), "10 KiB");
	cr_assert_str_eq(fmt(1048575), "1024 KiB");
	cr_assert_str_eq(fmt(1048576), "1.0 MiB");
	cr_assert_str_eq(fmt(12 * 1048576 + 1), "12 MiB");
	cr_assert_str_eq(fmt((uint64_t)15 << 30), "15 GiB");
	cr_assert_str_eq(fmt((uint64_t)3 << 40), "3.0 TiB");
	cr_assert_str_eq(fmt((uint64_t)5 << 50), "5.0 PiB");
	cr_assert_str_eq(fmt(UINT64_MAX), "16 EiB");
}

Test(bytes, cut_to_the_buffer)
{
	char buf[4];

	cr_assert_eq(bytes_format(1536, buf, sizeof buf), buf);
	cr_assert_str_eq(buf, "1.5");
}
