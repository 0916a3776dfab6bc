#define _GNU_SOURCE
#include "rules.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plumbing.h"
#include "python_code.h"
#include "tags.h"

/* Room for this many of the user's rules, and the built-in ones after. */
#define MAX_USER_RULES 1024
#define MAX_RULES      (MAX_USER_RULES + 32)

struct rule {
	char pattern[128];
	uint32_t tag;
};

static struct rule rules[MAX_RULES];
static unsigned rule_count;
static unsigned user_rule_count; /* the first ones; the built-in ones follow */
static unsigned user_rules_left_out;

/* Substrings of a library's file name, and the owner they name; one with a
 * slash is looked for in the whole path, for libraries whose file names are
 * plain but whose folders say whose they are (CuPy's runtime.cpython-*.so,
 * JAX's PJRT plugin and _jax.so). */
static const char *const built_in[][2] = {
	{"libcublasLt", "cublas"},
	{"libcublas", "cublas"},
	{"libcudnn", "cudnn"},
	{"libnccl", "nccl"},
	{"libcufft", "cufft"},
	{"libcusparse", "cusparse"},
	{"libcusolver", "cusolver"},
	{"libcurand", "curand"},
	{"libc10_cuda", "pytorch"},
	{"libtorch_cuda", "pytorch"},
	{"xla_extension", "xla"},
	{"libxla", "xla"},
	{"jaxlib", "xla"},
	{"xla_cuda_plugin", "xla"},
	{"/jax_plugins/", "xla"},
	{"/jaxlib/", "xla"},
	{"cupy", "cupy"},
	{"/cupy_backends/", "cupy"},
	{"/cupy/cuda/", "cupy"},
	{"libtensorflow", "tensorflow"},
	{"_pywrap_tensorflow", "tensorflow"},
};

/* Python packages that allocate device memory themselves, by the files
 * of their CUDA parts (substrings of the path), and the owner they name. */
static const char *const built_in_python[][2] = {
	{"/numba/cuda/", "numba"},
};
static uint32_t built_in_python_tags[sizeof(built_in_python) / sizeof(built_in_python[0])];

static const char *file_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static bool add_rule(const char *pattern, size_t pattern_length, const char *tag, size_t tag_length)
{
	if (rule_count == MAX_RULES || pattern_length == 0 || tag_length == 0 ||
	    pattern_length >= sizeof(rules[0].pattern) || tag_length > VT_TAG_MAX_NAME)
		return false;
	char name[VT_TAG_MAX_NAME + 1];
	memcpy(name, tag, tag_length);
	name[tag_length] = '\0';
	struct rule *rule = &rules[rule_count++];
	memcpy(rule->pattern, pattern, pattern_length);
	rule->pattern[pattern_length] = '\0';
	rule->tag = vt_tag_intern(name);
	return true;
}

/* Narrows [*start, *start + *length) to what lies between blanks. */
static void trim(const char **start, size_t *length)
{
	while (*length && strchr(" \t\r", (*start)[0])) {
		(*start)++;
		(*length)--;
	}
	while (*length && strchr(" \t\r", (*start)[*length - 1]))
		(*length)--;
}

static bool add_user_rule(const char *item, size_t length)
{
	trim(&item, &length);
	if (length == 0 || item[0] == '#') /* blank, or a comment */
		return true;
	const char *equals = memchr(item, '=', length);
	if (!equals)
		return false;
	const char *pattern = item, *tag = equals + 1;
	size_t pattern_length = (size_t)(equals - item), tag_length = length - pattern_length - 1;
	trim(&pattern, &pattern_length);
	trim(&tag, &tag_length);
	if (rule_count == MAX_USER_RULES) {
		user_rules_left_out++;
		return pattern_length > 0 && tag_length > 0;
	}
	return add_rule(pattern, pattern_length, tag, tag_length);
}

static bool add_user_rules(const char *text)
{
	for (const char *item = text; *item;) {
		size_t length = strcspn(item, ";\n");
		if (!add_user_rule(item, length))
			return false;
		item += length + (item[length] ? 1 : 0);
	}
	return true;
}

/* A regular file of at most 256 KiB of text, or NULL. Opened without
 * blocking and checked before it is read: fopen(3) of a FIFO with no
 * writer waited forever inside the program's first CUDA call, and a
 * directory or /dev/zero read as an empty file of no rules, without a
 * word. A NUL byte, or more than fits, would silently cut the rules
 * short (a rule cut in half included), so either refuses the file. */
static char *read_rules_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	static char text[1 << 18];
	struct stat status;
	size_t got = 0;
	bool ok = fstat(fd, &status) == 0 && S_ISREG(status.st_mode);
	while (ok && got < sizeof(text)) {
		ssize_t n = read(fd, text + got, sizeof(text) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ok = n == 0;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	if (!ok || got == sizeof(text) || memchr(text, '\0', got))
		return NULL;
	text[got] = '\0';
	return text;
}

unsigned vt_rules_left_out(void)
{
	return user_rules_left_out;
}

bool vt_rules_init(const char *text)
{
	rule_count = 0;
	user_rules_left_out = 0;
	bool ok = true;
	if (text && *text) {
		const char *rules_text = strchr(text, '=') ? text : read_rules_file(text);
		ok = rules_text && add_user_rules(rules_text);
		if (!ok) {
			rule_count = 0;
			user_rules_left_out = 0;
		}
	}
	user_rule_count = rule_count;
	for (size_t i = 0; i < sizeof(built_in) / sizeof(built_in[0]); i++)
		add_rule(built_in[i][0], strlen(built_in[i][0]), built_in[i][1],
			 strlen(built_in[i][1]));
	for (size_t i = 0; i < sizeof(built_in_python) / sizeof(built_in_python[0]); i++)
		built_in_python_tags[i] = vt_tag_intern(built_in_python[i][1]);
	return ok;
}

uint32_t vt_rules_tag_for_module(const char *path)
{
	const char *name = file_name(path);
	for (unsigned i = 0; i < rule_count; i++)
		if (strstr(strchr(rules[i].pattern, '/') ? path : name, rules[i].pattern))
			return rules[i].tag;
	return VT_TAG_UNTAGGED;
}

/* "transformers.models.llama.modeling_llama.LlamaAttention.forward": the
 * file as a dotted module path, then the qualified name. */
static void dotted_name(const struct vt_py_code *code, char *out, size_t size)
{
	const char *file = code->filename;
	size_t length = strlen(file);
	if (length > 3 && strcmp(file + length - 3, ".py") == 0)
		length -= 3;
	while (length && *file == '/') {
		file++;
		length--;
	}
	size_t used = 0;
	for (size_t i = 0; i < length && used + 1 < size; i++)
		out[used++] = file[i] == '/' ? '.' : file[i];
	snprintf(out + used, size - used, ".%s", code->qualname);
}

/* The user's rules against a Python frame: its file, its qualified name,
 * or both dotted ("*.attention.*"), as shell patterns. */
static uint32_t python_rule(uintptr_t frame)
{
	struct vt_py_code code;
	if (!vt_py_code_get(vt_py_frame_code(frame), &code))
		return VT_TAG_UNTAGGED;
	char dotted[2048];
	dotted_name(&code, dotted, sizeof(dotted));
	for (unsigned r = 0; r < user_rule_count; r++) {
		const char *pattern = rules[r].pattern;
		if (fnmatch(pattern, code.filename, 0) == 0 ||
		    fnmatch(pattern, code.qualname, 0) == 0 || fnmatch(pattern, dotted, 0) == 0)
			return rules[r].tag;
	}
	return VT_TAG_UNTAGGED;
}

/* The built-in Python rules against a frame's file. */
static uint32_t built_in_python_rule(uintptr_t frame)
{
	struct vt_py_code code;
	if (!vt_py_code_get(vt_py_frame_code(frame), &code))
		return VT_TAG_UNTAGGED;
	for (size_t i = 0; i < sizeof(built_in_python) / sizeof(built_in_python[0]); i++)
		if (built_in_python_tags[i] != VT_TAG_UNTAGGED &&
		    strstr(code.filename, built_in_python[i][0]))
			return built_in_python_tags[i];
	return VT_TAG_UNTAGGED;
}

uint32_t vt_rules_tag_for_stack(const uintptr_t *frames, unsigned depth)
{
	/* The program's own Python lines, when a rule names them, come before
	 * the libraries beneath them (PyTorch's allocator, cuBLAS). */
	for (unsigned i = 0; i < depth && user_rule_count; i++) {
		uint32_t tag = vt_py_is_frame(frames[i]) ? python_rule(frames[i]) : VT_TAG_UNTAGGED;
		if (tag != VT_TAG_UNTAGGED)
			return tag;
	}
	/* A package that allocates for the program (numba.cuda), before the
	 * native libraries it calls through. */
	for (unsigned i = 0; i < depth; i++) {
		uint32_t tag = vt_py_is_frame(frames[i]) ? built_in_python_rule(frames[i])
							 : VT_TAG_UNTAGGED;
		if (tag != VT_TAG_UNTAGGED)
			return tag;
	}
	for (unsigned i = 0; i < depth; i++) {
		if (vt_py_is_frame(frames[i]))
			continue;
		Dl_info info;
		/* A return address points after the call; step back into it. */
		if (!dladdr((void *)(frames[i] - 1), &info) || !info.dli_fname)
			continue;
		if (!vt_plumbing_module(info.dli_fname))
			return vt_rules_tag_for_module(info.dli_fname);
	}
	return VT_TAG_UNTAGGED;
}
