#include <criterion/criterion.h>

#include "size.h"

struct size_case {
	const char *text;
	uint64_t bytes;
};

Test(size, parses_binary_decimal_and_plain)
{
	static const struct size_case cases[] = {
		{"0", 0},
		{"1048576", 1048576},
		{"512B", 512},
		{"4K", 4096},
		{"4KiB", 4096},
		{"4kB", 4000},
		{"81920MiB", 80ull << 30},
		{"80GiB", 80ull << 30},
		{"80G", 80ull << 30},
		{"80GB", 80000000000ull},
		{"2TB", 2000000000000ull},
		{"1TiB", 1ull << 40},
		{"18446744073709551615", UINT64_MAX},
		{"3.5GiB", 3758096384ull},
		{"80gb", 80000000000ull},
		{"4g", 4ull << 30},
		{"80 GiB", 80ull << 30},
		{" 80 gib ", 80ull << 30},
		{"1e9", 1000000000ull},
		{"1.5e3 KiB", 1536000ull},
		{"2.5e-1KiB", 256},
		{"3.3G", 3543348019ull}, /* 3543348019.2: the fraction of a byte dropped */
		{"1.5 gb", 1500000000ull},
		{"0.5B", 0},
		{"1PiB", 1ull << 50},
		{"16383.999999999999999PiB", 18446744073709551614ull},
		{"1EiB", 1ull << 60},
		{"15.5 EiB", 31ull << 59},
		{"8EB", 8000000000000000000ull},
		{"0000000000000000000000000001", 1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t bytes = 1;
		cr_assert(vt_size_parse(cases[i].text, &bytes), "%s", cases[i].text);
		cr_assert_eq(bytes, cases[i].bytes, "%s", cases[i].text);
	}
}

Test(size, rejects_what_is_not_a_size)
{
	static const char *const bad[] = {
		"",
		"-1",
		"GiB",
		"12XB",
		"1.5.5G",
		"80 GiBs",
		"80 Gi B",
		"1,5G",
		"0x10",
		".",
		"1e20",
		"1e",
		"18446744073709551616",
		"17179869184GiB",
		"16384PiB",
		"16EiB",
		"18.5EB",
		"EiB",
		"1.000000000000000000001",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t bytes = 7;
		cr_assert_not(vt_size_parse(bad[i], &bytes), "'%s' parsed", bad[i]);
		cr_assert_eq(bytes, 7, "'%s' changed the output", bad[i]);
	}
	cr_assert_not(vt_size_parse(NULL, NULL));
}

Test(size, a_number_without_its_unit_is_known)
{
	cr_assert(vt_size_unitless("2"));
	cr_assert(vt_size_unitless("0"));
	cr_assert_not(vt_size_unitless("2B"));
	cr_assert_not(vt_size_unitless("2GiB"));
	cr_assert_not(vt_size_unitless(""));
	cr_assert(vt_size_unitless("2.5"));
	cr_assert(vt_size_unitless(".5"));
	cr_assert_not(vt_size_unitless("2.5B"));
	cr_assert(vt_size_unitless("1e9"));
	cr_assert_not(vt_size_unitless("1.2.3"));
	cr_assert_not(vt_size_unitless("."));
}

Test(size, formats_in_binary_units)
{
	char buf[32];
	vt_size_format(0, buf, sizeof(buf));
	cr_assert_str_eq(buf, "0 B");
	vt_size_format(1023, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1023 B");
	vt_size_format(1536, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1.50 KiB");
	vt_size_format(80ull << 30, buf, sizeof(buf));
	cr_assert_str_eq(buf, "80.00 GiB");
	vt_size_format(UINT64_MAX, buf, sizeof(buf));
	cr_assert_str_eq(buf, "16.00 EiB");
}

/* Two decimals that round up to 1024 are the next unit's 1.00: 1048575
 * bytes (1023.999 KiB) printed "1024.00 KiB". */
Test(size, rounding_up_reaches_the_next_unit)
{
	static const struct {
		uint64_t bytes;
		const char *text;
	} cases[] = {
		{1048570, "1023.99 KiB"},
		{1048571, "1.00 MiB"},
		{1048575, "1.00 MiB"},
		{(1ull << 30) - 1, "1.00 GiB"},
		{(1ull << 40) - 1, "1.00 TiB"},
		{(1ull << 60) - 1, "1.00 EiB"},
		{(1023ull << 20) + 1, "1023.00 MiB"},
		{UINT64_MAX, "16.00 EiB"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[32];
		vt_size_format(cases[i].bytes, buf, sizeof(buf));
		cr_assert_str_eq(buf, cases[i].text, "%llu bytes",
				 (unsigned long long)cases[i].bytes);
	}
}

/* A size the tools print reads back as an option's value, to within its
 * two decimals: every unit the printer uses is one the parser knows. */
Test(size, what_is_printed_reads_back)
{
	static const uint64_t values[] = {
		0, 1023, 1536, 80ull << 30, 3ull << 50, 5ull << 60, (15ull << 60) + (1ull << 59)};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char buf[32];
		uint64_t back = 0;
		vt_size_format(values[i], buf, sizeof(buf));
		cr_assert(vt_size_parse(buf, &back), "'%s' did not read back", buf);
		cr_assert_eq(back, values[i], "'%s' read back as %llu", buf,
			     (unsigned long long)back);
	}
}
