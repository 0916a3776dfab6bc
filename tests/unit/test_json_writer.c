#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_writer.h"

static char *text;
static size_t size;

static json_t *write_and_parse(void (*body)(struct vt_json *))
{
	FILE *out = tmpfile();
	static struct vt_json json;
	vt_json_init(&json, fileno(out));
	body(&json);
	cr_assert(vt_json_finish(&json));
	size = (size_t)ftell(out);
	text = calloc(1, size + 1);
	rewind(out);
	cr_assert_eq(fread(text, 1, size, out), size);
	fclose(out);
	json_error_t error;
	json_t *parsed = json_loads(text, JSON_ALLOW_NUL, &error);
	cr_assert(parsed, "%s: %s", text, error.text);
	return parsed;
}

static void nested(struct vt_json *json)
{
	vt_json_begin_object(json, NULL);
	vt_json_u64(json, "big", UINT64_MAX >> 1);
	vt_json_i64(json, "negative", -3);
	vt_json_bool(json, "yes", true);
	vt_json_null(json, "nothing");
	vt_json_begin_array(json, "empty");
	vt_json_end_array(json);
	vt_json_begin_array(json, "list");
	vt_json_begin_object(json, NULL);
	vt_json_string(json, "k", "v");
	vt_json_end_object(json);
	vt_json_u64(json, NULL, 7);
	vt_json_end_array(json);
	vt_json_end_object(json);
}

Test(json_writer, nesting_and_scalars)
{
	json_t *parsed = write_and_parse(nested);
	cr_assert_eq(json_integer_value(json_object_get(parsed, "big")),
		     (json_int_t)(UINT64_MAX >> 1));
	cr_assert_eq(json_integer_value(json_object_get(parsed, "negative")), -3);
	cr_assert(json_is_true(json_object_get(parsed, "yes")));
	cr_assert(json_is_null(json_object_get(parsed, "nothing")));
	cr_assert_eq(json_array_size(json_object_get(parsed, "empty")), 0);
	json_t *list = json_object_get(parsed, "list");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(list, 0), "k")), "v");
	cr_assert_eq(json_integer_value(json_array_get(list, 1)), 7);
	json_decref(parsed);
	free(text);
}

static void hostile_strings(struct vt_json *json)
{
	vt_json_begin_object(json, NULL);
	vt_json_string(json, "quote\"key", "a\"b\\c\n\t\x01");
	vt_json_string_n(json, "nul", "a\0b", 3);
	vt_json_string(json, "utf8", "gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80");
	vt_json_string(json, "invalid", "x\xff y\xc3 z\xed\xa0\x80 w\xc0\xaf");
	vt_json_end_object(json);
}

Test(json_writer, strings_are_escaped_and_valid_utf8)
{
	json_t *parsed = write_and_parse(hostile_strings);
	cr_assert_str_eq(json_string_value(json_object_get(parsed, "quote\"key")),
			 "a\"b\\c\n\t\x01");
	json_t *nul = json_object_get(parsed, "nul");
	cr_assert_eq(json_string_length(nul), 3);
	cr_assert_eq(memcmp(json_string_value(nul), "a\0b", 3), 0);
	cr_assert_str_eq(json_string_value(json_object_get(parsed, "utf8")),
			 "gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80");
	/* Each bad byte becomes U+FFFD (EF BF BD): a lone 0xFF, a truncated
	 * sequence, a surrogate and an overlong form. */
	cr_assert_str_eq(json_string_value(json_object_get(parsed, "invalid")),
			 "x\xef\xbf\xbd y\xef\xbf\xbd z\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
			 "w\xef\xbf\xbd\xef\xbf\xbd");
	json_decref(parsed);
	free(text);
}

static void long_document(struct vt_json *json)
{
	vt_json_begin_array(json, NULL);
	for (int i = 0; i < 5000; i++)
		vt_json_string(json, NULL, "a string long enough to cross the buffer many times");
	vt_json_end_array(json);
}

Test(json_writer, documents_larger_than_the_buffer)
{
	json_t *parsed = write_and_parse(long_document);
	cr_assert_eq(json_array_size(parsed), 5000);
	json_decref(parsed);
	free(text);
}

Test(json_writer, a_failed_write_is_reported)
{
	struct vt_json json;
	vt_json_init(&json, -1);
	long_document(&json);
	cr_assert_not(vt_json_finish(&json));
}

static void line_arrays(struct vt_json *json)
{
	vt_json_begin_object(json, NULL);
	vt_json_begin_line_array(json, "frames");
	for (uint64_t i = 0; i < 4; i++)
		vt_json_u64(json, NULL, i * 10);
	vt_json_end_array(json);
	vt_json_begin_line_array(json, "none");
	vt_json_end_array(json);
	vt_json_begin_array(json, "after");
	vt_json_u64(json, NULL, 1);
	vt_json_end_array(json);
	vt_json_end_object(json);
}

Test(json_writer, line_arrays_keep_their_items_on_one_line)
{
	json_t *parsed = write_and_parse(line_arrays);
	cr_assert(strstr(text, "\"frames\": [0, 10, 20, 30]"), "%s", text);
	cr_assert(strstr(text, "\"none\": []"), "%s", text);
	cr_assert(strstr(text, "\"after\": [\n    1\n  ]"), "the next array is indented: %s", text);
	cr_assert_eq(json_integer_value(json_array_get(json_object_get(parsed, "frames"), 3)), 30);
	json_decref(parsed);
	free(text);
}
