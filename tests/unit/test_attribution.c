/* Tags, tag stacks, stack interning, module rules, leaks and top-k: the
 * pieces attribution is made of. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "leaks.h"
#include "plumbing.h"
#include "rules.h"
#include "stacks.h"
#include "tag_stack.h"
#include "tags.h"
#include "top.h"

Test(tags, interned_once_and_named)
{
	uint32_t a = vt_tag_intern("kv_cache");
	uint32_t b = vt_tag_intern("weights");
	cr_assert_neq(a, VT_TAG_UNTAGGED);
	cr_assert_neq(a, b);
	cr_assert_eq(vt_tag_intern("kv_cache"), a);
	cr_assert_str_eq(vt_tag_name(a), "kv_cache");
	cr_assert_str_eq(vt_tag_name(VT_TAG_UNTAGGED), "untagged");
	cr_assert_str_eq(vt_tag_name(VT_MAX_TAGS - 2), "untagged", "never handed out");
	cr_assert_str_eq(vt_tag_name(VT_TAG_OTHER), "other tags");
	cr_assert_eq(vt_tag_intern(""), VT_TAG_UNTAGGED);
	cr_assert_eq(vt_tag_intern(NULL), VT_TAG_UNTAGGED);
}

/* The report writes a tag's name as JSON (a byte that is no UTF-8 as
 * U+FFFD) and keys objects by it: names that read alike there are one. */
Test(tags, names_that_the_report_writes_alike_are_one_tag)
{
	uint32_t ff = vt_tag_intern("a\xff");
	cr_assert_eq(vt_tag_intern("a\xfe"), ff);
	cr_assert_eq(vt_tag_intern("a\xef\xbf\xbd"), ff, "U+FFFD itself");
	cr_assert_str_eq(vt_tag_name(ff), "a\xef\xbf\xbd");
	cr_assert_neq(vt_tag_intern("a\xc3\xa9"), ff, "valid UTF-8 kept as it is");
	cr_assert_eq(vt_tag_intern("untagged"), VT_TAG_UNTAGGED);
	cr_assert_eq(vt_tag_intern("other tags"), VT_TAG_OTHER);
	cr_assert_eq(vt_tag_grouped(), 0, "a name, not a table out of room");
	/* 255 bytes of 0xff would be 765 as U+FFFD: cut at a character. */
	char name[VT_TAG_MAX_NAME + 1];
	memset(name, 0xff, VT_TAG_MAX_NAME);
	name[VT_TAG_MAX_NAME] = '\0';
	const char *written = vt_tag_name(vt_tag_intern(name));
	cr_assert_eq(strlen(written), 255);
	cr_assert_eq(memcmp(written + 252, "\xef\xbf\xbd", 3), 0);
}

Test(tags, long_names_are_truncated_and_the_table_is_bounded)
{
	char name[600];
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	uint32_t id = vt_tag_intern(name);
	cr_assert_eq(strlen(vt_tag_name(id)), VT_TAG_MAX_NAME);
	/* Every id up to the bound is a name of its own, each found again. */
	for (unsigned i = 0; i < VT_MAX_TAGS + 10; i++) {
		char unique[32];
		snprintf(unique, sizeof(unique), "tag-%u", i);
		uint32_t got = vt_tag_intern(unique);
		if (i < VT_MAX_TAGS - 3)
			cr_assert_eq(got, i + 2, "%s got %u", unique, got);
		else
			cr_assert_eq(got, VT_TAG_OTHER, "%s past the bound", unique);
	}
	cr_assert_eq(vt_tag_limit(), VT_TAG_OTHER);
	cr_assert_eq(vt_tag_grouped(), 13, "the 13 names past the bound, counted");
	cr_assert_eq(vt_tag_intern("one too many"), VT_TAG_OTHER);
	cr_assert_eq(vt_tag_grouped(), 14);
	cr_assert_eq(vt_tag_intern("tag-70000"), 70002, "a name kept is found again");
	cr_assert_str_eq(vt_tag_name(70002), "tag-70000");
	cr_assert_str_eq(vt_tag_name(VT_TAG_OTHER - 1), "tag-1048572");
}

Test(tag_stack, api_outranks_nvtx_and_nests)
{
	cr_assert_eq(vt_tag_current(), VT_TAG_UNTAGGED);
	vt_tag_push(VT_TAG_FROM_NVTX, 5);
	cr_assert_eq(vt_tag_current(), 5);
	vt_tag_push(VT_TAG_FROM_API, 7);
	vt_tag_push(VT_TAG_FROM_API, 8);
	cr_assert_eq(vt_tag_current(), 8);
	cr_assert(vt_tag_pop(VT_TAG_FROM_API));
	cr_assert_eq(vt_tag_current(), 7);
	cr_assert(vt_tag_pop(VT_TAG_FROM_API));
	cr_assert_eq(vt_tag_current(), 5);
	cr_assert(vt_tag_pop(VT_TAG_FROM_NVTX));
	cr_assert_not(vt_tag_pop(VT_TAG_FROM_NVTX), "nothing left to pop");
	cr_assert_eq(vt_tag_current(), VT_TAG_UNTAGGED);
}

Test(tag_stack, overflow_keeps_pops_matched)
{
	for (int i = 0; i < VT_TAG_STACK_DEPTH + 10; i++)
		vt_tag_push(VT_TAG_FROM_API, (uint32_t)(i + 1));
	cr_assert_eq(vt_tag_current(), VT_TAG_STACK_DEPTH);
	for (int i = 0; i < 10; i++)
		vt_tag_pop(VT_TAG_FROM_API);
	cr_assert_eq(vt_tag_current(), VT_TAG_STACK_DEPTH);
	vt_tag_pop(VT_TAG_FROM_API);
	cr_assert_eq(vt_tag_current(), VT_TAG_STACK_DEPTH - 1);
}

static void *push_own_tags(void *arg)
{
	uint32_t base = (uint32_t)(uintptr_t)arg;
	for (int round = 0; round < 1000; round++) {
		vt_tag_push(VT_TAG_FROM_API, base);
		vt_tag_push(VT_TAG_FROM_API, (uint32_t)(base + 1));
		if (vt_tag_current() != base + 1)
			return (void *)1;
		vt_tag_pop(VT_TAG_FROM_API);
		if (vt_tag_current() != base)
			return (void *)1;
		vt_tag_pop(VT_TAG_FROM_API);
	}
	return vt_tag_current() == VT_TAG_UNTAGGED ? NULL : (void *)1;
}

Test(tag_stack, each_thread_has_its_own)
{
	pthread_t threads[8];
	for (uintptr_t t = 0; t < 8; t++)
		pthread_create(&threads[t], NULL, push_own_tags, (void *)(10 * t + 10));
	for (int t = 0; t < 8; t++) {
		void *result;
		pthread_join(threads[t], &result);
		cr_assert_null(result, "thread %d saw another's tags", t);
	}
}

Test(stacks, same_frames_same_id)
{
	uintptr_t a[] = {0x1000, 0x2000, 0x3000}, b[] = {0x1000, 0x2000, 0x3001};
	uint32_t id_a = vt_stack_intern(a, 3, VT_TAG_UNTAGGED);
	uint32_t id_b = vt_stack_intern(b, 3, VT_TAG_UNTAGGED);
	cr_assert_neq(id_a, VT_STACK_NONE);
	cr_assert_neq(id_a, id_b);
	cr_assert_eq(vt_stack_intern(a, 3, VT_TAG_UNTAGGED), id_a);
	cr_assert_neq(vt_stack_intern(a, 2, VT_TAG_UNTAGGED), id_a, "a prefix is another stack");
	const uintptr_t *frames;
	cr_assert_eq(vt_stack_frames(id_b, &frames), 3);
	cr_assert_eq(frames[2], 0x3001);
	cr_assert_eq(vt_stack_intern(a, 0, VT_TAG_UNTAGGED), VT_STACK_NONE);
	cr_assert_eq(vt_stack_frames(999999, &frames), 0);
	/* No module rule names these frames (no code is there). */
	cr_assert_eq(vt_stack_tag(id_a), VT_TAG_UNTAGGED);
	cr_assert_eq(vt_stack_tag(999999), VT_TAG_UNTAGGED);
}

/* The same frames under two tags are two stacks, each with its own tag,
 * whether found by the last-interned compare, the thread's cache or the
 * shared table. */
Test(stacks, the_tag_is_part_of_a_stack)
{
	uintptr_t a[] = {0x8000, 0x8100, 0x8200};
	uint32_t fwd = vt_tag_intern("forward"), bwd = vt_tag_intern("backward");
	uint32_t id_fwd = vt_stack_intern(a, 3, fwd);
	uint32_t id_bwd = vt_stack_intern(a, 3, bwd); /* right after: the last-interned compare */
	uint32_t id_none = vt_stack_intern(a, 3, VT_TAG_UNTAGGED);
	cr_assert_neq(id_fwd, VT_STACK_NONE);
	cr_assert_neq(id_fwd, id_bwd);
	cr_assert_neq(id_none, id_fwd);
	cr_assert_neq(id_none, id_bwd);
	cr_assert_eq(vt_stack_intern(a, 3, fwd), id_fwd, "from the thread's cache");
	cr_assert_eq(vt_stack_intern(a, 3, fwd), id_fwd, "the last interned");
	cr_assert_eq(vt_stack_tag(id_fwd), fwd);
	cr_assert_eq(vt_stack_tag(id_bwd), bwd);
	cr_assert_eq(vt_stack_tag(id_none), VT_TAG_UNTAGGED);
	const uintptr_t *frames_fwd, *frames_bwd;
	cr_assert_eq(vt_stack_frames(id_fwd, &frames_fwd), 3);
	cr_assert_eq(vt_stack_frames(id_bwd, &frames_bwd), 3);
	cr_assert_arr_eq(frames_fwd, frames_bwd, 3 * sizeof(*frames_fwd));
}

static void *intern_under_tag(void *arg)
{
	uintptr_t frames[] = {0x8800, 0x8900};
	return (void *)(uintptr_t)vt_stack_intern(frames, 2, (uint32_t)(uintptr_t)arg);
}

/* Another thread, with a cache of its own, finds the same ids. */
Test(stacks, threads_agree_on_stacks_with_tags)
{
	uintptr_t frames[] = {0x8800, 0x8900};
	uint32_t one = vt_tag_intern("one"), two = vt_tag_intern("two");
	uint32_t id_one = vt_stack_intern(frames, 2, one), id_two = vt_stack_intern(frames, 2, two);
	pthread_t threads[2];
	void *seen[2];
	pthread_create(&threads[0], NULL, intern_under_tag, (void *)(uintptr_t)one);
	pthread_create(&threads[1], NULL, intern_under_tag, (void *)(uintptr_t)two);
	for (int t = 0; t < 2; t++)
		pthread_join(threads[t], &seen[t]);
	cr_assert_eq((uint32_t)(uintptr_t)seen[0], id_one);
	cr_assert_eq((uint32_t)(uintptr_t)seen[1], id_two);
}

/* A thread's next stack is first compared with the one it interned last:
 * each stack here comes right after one that differs from it in one
 * frame or in depth only. */
Test(stacks, the_last_stack_is_told_from_its_neighbours)
{
	uintptr_t a[] = {0x7000, 0x7100, 0x7200, 0x7300}, last_differs[] = {0x7000, 0x7100, 0x7201},
		  first_differs[] = {0x7001, 0x7100, 0x7200};
	uint32_t id = vt_stack_intern(a, 3, VT_TAG_UNTAGGED);
	cr_assert_eq(vt_stack_intern(a, 3, VT_TAG_UNTAGGED), id);
	uint32_t seen[] = {vt_stack_intern(last_differs, 3, VT_TAG_UNTAGGED),
			   vt_stack_intern(first_differs, 3, VT_TAG_UNTAGGED),
			   vt_stack_intern(a, 2, VT_TAG_UNTAGGED),
			   vt_stack_intern(a, 4, VT_TAG_UNTAGGED)};
	for (size_t i = 0; i < sizeof(seen) / sizeof(seen[0]); i++) {
		cr_assert_neq(seen[i], VT_STACK_NONE);
		cr_assert_neq(seen[i], id, "stack %zu taken for the one before it", i);
		for (size_t j = 0; j < i; j++)
			cr_assert_neq(seen[i], seen[j], "stacks %zu and %zu", j, i);
	}
	cr_assert_eq(vt_stack_intern(a, 3, VT_TAG_UNTAGGED), id);
	cr_assert_eq(vt_stack_intern(last_differs, 3, VT_TAG_UNTAGGED), seen[0]);
	cr_assert_eq(vt_stack_intern(last_differs, 3, VT_TAG_UNTAGGED), seen[0]);
}

static void *intern_many(void *arg)
{
	(void)arg;
	for (uintptr_t i = 0; i < 20000; i++) {
		uintptr_t frames[] = {0x500000 + i % 5000, 0x600000, 0x700000};
		uint32_t id = vt_stack_intern(frames, 3, VT_TAG_UNTAGGED);
		const uintptr_t *back;
		if (vt_stack_frames(id, &back) != 3 || back[0] != frames[0])
			return (void *)1;
	}
	return NULL;
}

Test(stacks, threads_agree_on_ids)
{
	uint32_t before = vt_stack_limit();
	pthread_t threads[8];
	for (int t = 0; t < 8; t++)
		pthread_create(&threads[t], NULL, intern_many, NULL);
	for (int t = 0; t < 8; t++) {
		void *result;
		pthread_join(threads[t], &result);
		cr_assert_null(result);
	}
	cr_assert_eq(vt_stack_limit() - before, 5000, "each distinct stack interned once");
}

Test(rules, built_in_and_user_rules)
{
	cr_assert(vt_rules_init(NULL));
	uint32_t cublas = vt_rules_tag_for_module("/opt/cuda/lib64/libcublasLt.so.13");
	cr_assert_str_eq(vt_tag_name(cublas), "cublas");
	cr_assert_str_eq(vt_tag_name(vt_rules_tag_for_module("/x/libc10_cuda.so")), "pytorch");
	cr_assert_eq(vt_rules_tag_for_module("/usr/bin/python3"), VT_TAG_UNTAGGED);
	/* Where CuPy and JAX make their allocations: plain file names, telling
	 * folders. */
	const char *const frameworks[][2] = {
		{"/sp/cupy_backends/cuda/api/runtime.cpython-312-x86_64-linux-gnu.so", "cupy"},
		{"/sp/cupy/cuda/memory.cpython-312-x86_64-linux-gnu.so", "cupy"},
		{"/sp/jax_plugins/xla_cuda13/xla_cuda_plugin.so", "xla"},
		{"/sp/jaxlib/_jax.so", "xla"},
	};
	for (size_t i = 0; i < sizeof(frameworks) / sizeof(frameworks[0]); i++)
		cr_assert_str_eq(vt_tag_name(vt_rules_tag_for_module(frameworks[i][0])),
				 frameworks[i][1], "%s", frameworks[i][0]);
	cr_assert_eq(vt_rules_tag_for_module("/home/cupy/bin/serve"), VT_TAG_UNTAGGED,
		     "a folder's name alone is no owner");
	cr_assert_eq(vt_rules_tag_for_module("/sp/runtime.cpython-312-x86_64-linux-gnu.so"),
		     VT_TAG_UNTAGGED);
	cr_assert(vt_rules_init("libmine=mine; libcublas=blas"));
	cr_assert_str_eq(vt_tag_name(vt_rules_tag_for_module("/a/libmine.so")), "mine");
	cr_assert_str_eq(vt_tag_name(vt_rules_tag_for_module("/a/libcublas.so")), "blas",
			 "user rules come first");
	cr_assert_not(vt_rules_init("no equals sign here;"), "neither rules nor a file");
	cr_assert_str_eq(vt_tag_name(vt_rules_tag_for_module("/a/libnccl.so.2")), "nccl");
	cr_assert(vt_plumbing_module("/usr/lib/libcuda.so.1"));
	cr_assert(vt_plumbing_module("libcudart.so.13"));
	cr_assert_not(vt_plumbing_module("/usr/lib/libcublas.so.13"));
}

Test(rules, from_a_file)
{
	char path[] = "/tmp/vt-rules.XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	const char text[] = "# not a rule\nlibfancy=fancy\n\nlibother=other\n";
	cr_assert(write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1));
	close(fd);
	bool ok = vt_rules_init(path);
	unlink(path);
	cr_assert(ok);
	cr_assert_str_eq(vt_tag_name(vt_rules_tag_for_module("/lib/libfancy.so")), "fancy");
	cr_assert_str_eq(vt_tag_name(vt_rules_tag_for_module("/lib/libother.so")), "other");
	cr_assert_not(vt_rules_init("/no/such/rules/file"));
}

/* path written with size bytes of text. */
static void write_rules_file(const char *path, const char *text, size_t size)
{
	FILE *file = fopen(path, "w");
	cr_assert(file);
	cr_assert_eq(fwrite(text, 1, size, file), size);
	cr_assert_eq(fclose(file), 0);
}

/* Only a regular file of text is a rules file: a FIFO with no writer was
 * waited on forever, a directory and /dev/zero read as no rules without a
 * word, and a NUL byte or a file past 256 KiB cut the rules short. */
Test(rules, a_file_that_is_no_text_file_is_refused_at_once, .timeout = 10)
{
	char dir[] = "/tmp/vt-rules-dir.XXXXXX", path[64];
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_not(vt_rules_init(path), "a FIFO");
	unlink(path);
	cr_assert_not(vt_rules_init(dir), "a directory");
	cr_assert_not(vt_rules_init("/dev/zero"), "a device");
	snprintf(path, sizeof(path), "%s/nul", dir);
	write_rules_file(path, "libfancy=fancy\n\0libother=other\n", 31);
	cr_assert_not(vt_rules_init(path), "a NUL byte");
	cr_assert_eq(vt_rules_tag_for_module("/lib/libfancy.so"), VT_TAG_UNTAGGED);
	static char big[(1 << 18) + 64];
	memset(big, '#', sizeof(big));
	memcpy(big, "libfancy=fancy\n", 15);
	write_rules_file(path, big, sizeof(big));
	cr_assert_not(vt_rules_init(path), "past 256 KiB");
	write_rules_file(path, big, (1 << 18) - 1);
	cr_assert(vt_rules_init(path), "256 KiB less a byte");
	cr_assert_str_eq(vt_tag_name(vt_rules_tag_for_module("/lib/libfancy.so")), "fancy");
	unlink(path);
	rmdir(dir);
}

/* rules_text: count rules "libmodN=tagN" joined by ';'. */
static char *many_rules(unsigned count)
{
	size_t size = (size_t)count * 32 + 1, used = 0;
	char *text = malloc(size);
	cr_assert(text);
	text[0] = '\0';
	for (unsigned i = 0; i < count; i++)
		used += (size_t)snprintf(text + used, size - used, "libmod%u.=tag%u;", i, i);
	return text;
}

Test(rules, a_thousand_user_rules_are_used_and_the_rest_counted)
{
	char *text = many_rules(200);
	cr_assert(vt_rules_init(text), "200 rules are fine");
	cr_assert_eq(vt_rules_left_out(), 0);
	cr_assert_str_eq(vt_tag_name(vt_rules_tag_for_module("/x/libmod199.so")), "tag199");
	cr_assert_str_eq(vt_tag_name(vt_rules_tag_for_module("/x/libnccl.so.2")), "nccl",
			 "the built-in rules follow");
	free(text);
	text = many_rules(1100);
	cr_assert(vt_rules_init(text));
	cr_assert_eq(vt_rules_left_out(), 76);
	cr_assert_str_eq(vt_tag_name(vt_rules_tag_for_module("/x/libmod1023.so")), "tag1023");
	cr_assert_eq(vt_rules_tag_for_module("/x/libmod1024.so"), VT_TAG_UNTAGGED);
	free(text);
}

static uint64_t values[] = {5, 0, 9, 1, 9, 7, 3};

static uint64_t value_of(uint32_t index, const void *context)
{
	(void)context;
	return values[index];
}

Test(top, k_largest_nonzero_in_order)
{
	uint32_t out[7];
	struct vt_top_entry scratch[10];
	uint32_t count = vt_top_indices(value_of, NULL, 7, 3, scratch, out);
	cr_assert_eq(count, 3);
	cr_assert_eq(out[0], 2);
	cr_assert_eq(out[1], 4, "ties keep the smaller index first");
	cr_assert_eq(out[2], 5);
	cr_assert_eq(vt_top_indices(value_of, NULL, 7, 10, scratch, out), 6, "zeros are left out");
	cr_assert_eq(vt_top_indices(value_of, NULL, 7, 0, scratch, out), 0);
}

Test(leaks, grouped_by_device_stack_and_tag)
{
	static struct vt_tracker tracker;
	struct vt_tracker_options options = {.clock = vt_clock_ns};
	vt_tracker_init(&tracker, &options);
	/* op, kind, device, address, bytes, error, api, driver api, tag, stack */
	struct vt_event a[] = {
		{VT_OP_ALLOC, VT_KIND_DEVICE, 0, 0x1000, 100, 0, "a", "a", 1, 7},
		{VT_OP_ALLOC, VT_KIND_DEVICE, 0, 0x2000, 100, 0, "a", "a", 1, 7},
		{VT_OP_ALLOC, VT_KIND_DEVICE, 0, 0x3000, 500, 0, "a", "a", 1, 8},
		{VT_OP_ALLOC, VT_KIND_DEVICE, 0, 0x4000, 50, 0, "a", "a", 2, 7},
		{VT_OP_ALLOC, VT_KIND_DEVICE, 1, 0x5000, 60, 0, "a", "a", 1, 7},
		{VT_OP_ALLOC, VT_KIND_PINNED_HOST, 0, 0x6000, 70, 0, "a", "a", 0, 0},
	};
	for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
		vt_tracker_record(&tracker, &a[i]);
	struct vt_leaks leaks;
	cr_assert(vt_leaks_collect(&tracker, &leaks));
	cr_assert_eq(leaks.group_count, 5);
	cr_assert_eq(leaks.allocations, 6);
	cr_assert_eq(leaks.bytes, 880);
	cr_assert_eq(leaks.groups[0].stack, 8);
	cr_assert_eq(leaks.groups[0].bytes, 500);
	cr_assert_eq(leaks.groups[1].stack, 7);
	cr_assert_eq(leaks.groups[1].count, 2);
	cr_assert_eq(leaks.groups[1].bytes, 200);
	cr_assert_eq(leaks.groups[1].tag, 1);
	cr_assert_eq(leaks.groups[1].device, 0);
	cr_assert_eq(leaks.groups[2].device, -1, "70 bytes of pinned host memory");
	vt_leaks_free(&leaks);
	vt_tracker_destroy(&tracker);
}

/* Tags past 65,535 and large device ordinals stay apart in the groups: the
 * host's tag 65536 is not device 0's untagged, nor tag 2^20 - 1 device 15's. */
Test(leaks, wide_tags_and_devices_never_share_a_group)
{
	static struct vt_tracker tracker;
	struct vt_tracker_options options = {.clock = vt_clock_ns};
	vt_tracker_init(&tracker, &options);
	struct vt_event a[] = {
		{VT_OP_ALLOC, VT_KIND_DEVICE, 0, 0x1000, 100, 0, "a", "a", 0, 3},
		{VT_OP_ALLOC, VT_KIND_PINNED_HOST, 0, 0x2000, 200, 0, "a", "a", 65536, 3},
		{VT_OP_ALLOC, VT_KIND_DEVICE, 15, 0x3000, 300, 0, "a", "a", 0, 3},
		{VT_OP_ALLOC, VT_KIND_DEVICE, 0, 0x4000, 400, 0, "a", "a", VT_TAG_OTHER, 3},
		{VT_OP_ALLOC, VT_KIND_DEVICE, 63, 0x5000, 500, 0, "a", "a", VT_TAG_OTHER, 3},
	};
	for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
		vt_tracker_record(&tracker, &a[i]);
	struct vt_leaks leaks;
	cr_assert(vt_leaks_collect(&tracker, &leaks));
	cr_assert_eq(leaks.group_count, 5);
	cr_assert_eq(leaks.bytes, 1500);
	cr_assert_eq(leaks.groups[0].device, 63);
	cr_assert_eq(leaks.groups[0].tag, VT_TAG_OTHER);
	cr_assert_eq(leaks.groups[2].device, 15);
	cr_assert_eq(leaks.groups[3].device, -1);
	cr_assert_eq(leaks.groups[3].tag, 65536);
	cr_assert_eq(leaks.groups[4].device, 0);
	cr_assert_eq(leaks.groups[4].tag, 0);
	vt_leaks_free(&leaks);
	vt_tracker_destroy(&tracker);
}
