#include "config.h"
#include "core/history.h"
#include "core/size.h"

#include <errno.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

extern char **environ;

struct option {
	const char *name;
	bool (*parse)(const char *value, struct vt_config *config);
	const char *expected;
};

static bool copy_into(char *out, size_t size, const char *value)
{
	if (strlen(value) >= size)
		return false;
	memcpy(out, value, strlen(value) + 1);
	return true;
}

/* A directory ("reports/") gets the default file name inside it. */
static bool parse_output(const char *value, struct vt_config *config)
{
	size_t length = strlen(value);
	if (length == 0)
		return false;
	if (value[length - 1] != '/')
		return copy_into(config->output, sizeof(config->output), value);
	int wrote = snprintf(config->output, sizeof(config->output), "%s%s", value,
			     VT_CONFIG_DEFAULT_OUTPUT);
	return wrote > 0 && (size_t)wrote < sizeof(config->output);
}

/* Every label is key=value with a non-empty key. */
static bool labels_valid(const char *value)
{
	const char *item = value;
	while (*item) {
		const char *end = strchr(item, ',');
		size_t length = end ? (size_t)(end - item) : strlen(item);
		const char *equals = memchr(item, '=', length);
		if (!equals || equals == item)
			return false;
		item += length + (end ? 1 : 0);
	}
	return true;
}

static bool parse_labels(const char *value, struct vt_config *config)
{
	return labels_valid(value) && copy_into(config->labels, sizeof(config->labels), value);
}

static bool parse_flag(const char *value, bool *out);

static bool parse_summary(const char *value, struct vt_config *config)
{
	return parse_flag(value, &config->summary);
}

static bool parse_report_list(const char *value, struct vt_config *config)
{
	return copy_into(config->report_list, sizeof(config->report_list), value);
}

static bool parse_count(const char *value, unsigned max, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long count = strtoul(value, &end, 10);
	/* Digits alone: strtoul would also take " 5" and "+5". */
	if (value[0] < '0' || value[0] > '9' || *end || errno || count > max)
		return false;
	*out = (unsigned)count;
	return true;
}

static bool parse_stack_depth(const char *value, struct vt_config *config)
{
	return parse_count(value, VT_CONFIG_MAX_STACK_DEPTH, &config->stack_depth);
}

static bool parse_top(const char *value, struct vt_config *config)
{
	return parse_count(value, 100000, &config->top) && config->top > 0;
}

/* At most 64 Mi changes: 1 GiB of address space per device, backed only
 * as it is written. */
static bool parse_history(const char *value, struct vt_config *config)
{
	return parse_count(value, 64u << 20, &config->history);
}

static bool parse_oom_snapshots(const char *value, struct vt_config *config)
{
	return parse_count(value, 1000, &config->oom_snapshots);
}

static bool parse_nvtx(const char *value, struct vt_config *config)
{
	if (strcmp(value, "path") != 0 && strcmp(value, "innermost") != 0)
		return false;
	config->nvtx_path = value[0] == 'p';
	return true;
}

static bool parse_rules(const char *value, struct vt_config *config)
{
	return *value && copy_into(config->rules, sizeof(config->rules), value);
}

static bool parse_checkpoint(const char *value, struct vt_config *config)
{
	return parse_count(value, 86400, &config->checkpoint_s);
}

static bool parse_flag(const char *value, bool *out)
{
	if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0)
		return false;
	*out = value[0] == '1';
	return true;
}

static bool parse_follow_fork(const char *value, struct vt_config *config)
{
	return parse_flag(value, &config->follow_fork);
}

static bool parse_redact_args(const char *value, struct vt_config *config)
{
	return parse_flag(value, &config->redact_args);
}

static bool parse_sample_ms(const char *value, struct vt_config *config)
{
	return parse_count(value, 60000, &config->sample_ms);
}

static bool parse_sources(const char *value, struct vt_config *config)
{
	static const char *const names[] = {"hooks", "cupti", "both"};
	for (int i = 0; i < 3; i++)
		if (strcmp(value, names[i]) == 0) {
			config->sources = (enum vt_sources)i;
			return true;
		}
	return false;
}

static bool parse_python(const char *value, struct vt_config *config)
{
	return parse_flag(value, &config->python);
}

static bool parse_python_depth(const char *value, struct vt_config *config)
{
	return parse_count(value, VT_CONFIG_MAX_STACK_DEPTH, &config->python_depth) &&
	       config->python_depth > 0;
}

/* "12GiB" or "90%" (hundredths allowed: "92.5%"), never zero; a bare
 * number could mean either, and is refused. */
static bool parse_level(const char *text, struct vt_level *mark)
{
	size_t length = strlen(text);
	*mark = (struct vt_level){0};
	if (length > 1 && text[length - 1] == '%') {
		unsigned whole = 0, fraction = 0, digits = 0;
		const char *at = text;
		for (; *at >= '0' && *at <= '9' && whole <= 100; at++)
			whole = whole * 10 + (unsigned)(*at - '0');
		if (at == text)
			return false;
		if (*at == '.')
			for (at++; *at >= '0' && *at <= '9' && digits < 2; at++, digits++)
				fraction = fraction * 10 + (unsigned)(*at - '0');
		fraction *= digits == 1 ? 10 : 1;
		mark->hundredths = whole * 100 + fraction;
		return at == text + length - 1 && mark->hundredths > 0 && mark->hundredths <= 10000;
	}
	return !vt_size_unitless(text) && vt_size_parse(text, &mark->bytes) && mark->bytes > 0;
}

static bool parse_watermark(const char *value, struct vt_config *config)
{
	char high[64];
	const char *comma = strchr(value, ',');
	size_t length = comma ? (size_t)(comma - value) : strlen(value);
	if (length >= sizeof(high))
		return false;
	memcpy(high, value, length);
	high[length] = '\0';
	struct vt_watermark_setting setting = {.has_low = comma != NULL};
	if (!parse_level(high, &setting.high) || (comma && !parse_level(comma + 1, &setting.low)))
		return false;
	config->watermark = setting;
	return true;
}

uint64_t vt_level_bytes(const struct vt_level *mark, uint64_t capacity)
{
	if (mark->bytes)
		return mark->bytes;
	return (uint64_t)((unsigned __int128)capacity * mark->hundredths / 10000);
}

static bool parse_control(const char *value, struct vt_config *config)
{
	return parse_flag(value, &config->control);
}

static bool parse_framework_cache(const char *value, struct vt_config *config)
{
	if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0)
		return false;
	config->framework_cache_off = value[1] == 'f';
	return true;
}

static const struct option options[] = {
	{"VRAMTRACE_OUTPUT", parse_output, "a path template such as vramtrace.%p.json"},
	{"VRAMTRACE_LABEL", parse_labels, "key=value pairs separated by commas"},
	{"VRAMTRACE_SUMMARY", parse_summary, "0 or 1"},
	{"VRAMTRACE_REPORT_LIST", parse_report_list, "a file path"},
	{"VRAMTRACE_STACK_DEPTH", parse_stack_depth, "a number of frames from 0 (off) to 128"},
	{"VRAMTRACE_TOP", parse_top, "a number from 1 to 100000"},
	{"VRAMTRACE_OOM_SNAPSHOTS", parse_oom_snapshots, "a number from 0 to 1000"},
	{"VRAMTRACE_HISTORY", parse_history, "a number of changes from 0 (off) to 67108864"},
	{"VRAMTRACE_NVTX", parse_nvtx, "innermost or path"},
	{"VRAMTRACE_RULES", parse_rules, "pattern=tag;... or a file of such lines"},
	{"VRAMTRACE_CHECKPOINT_S", parse_checkpoint, "seconds from 0 (off) to 86400"},
	{"VRAMTRACE_FOLLOW_FORK", parse_follow_fork, "0 or 1"},
	{"VRAMTRACE_REDACT_ARGS", parse_redact_args, "0 or 1"},
	{"VRAMTRACE_SAMPLE_MS", parse_sample_ms, "milliseconds from 0 (off) to 60000"},
	{"VRAMTRACE_SOURCES", parse_sources, "hooks, cupti or both"},
	{"VRAMTRACE_PYTHON", parse_python, "0 or 1"},
	{"VRAMTRACE_FRAMEWORK_CACHE", parse_framework_cache, "on or off"},
	{"VRAMTRACE_PYTHON_DEPTH", parse_python_depth, "a number of frames from 1 to 128"},
	{"VRAMTRACE_CONTROL", parse_control, "0 or 1"},
	{"VRAMTRACE_WATERMARK", parse_watermark,
	 "a size with its unit or a percentage of capacity, and optionally ',' and a lower mark "
	 "that re-arms it: 60GiB or 90%,80%"},
};

static void set_defaults(struct vt_config *config)
{
	memset(config, 0, sizeof(*config));
	copy_into(config->output, sizeof(config->output), VT_CONFIG_DEFAULT_OUTPUT);
	config->summary = true;
	config->stack_depth = 32;
	config->top = 10000; /* a whole flame graph; 5.8 MB and 0.31 s for 100,000 stacks */
	config->oom_snapshots = 1;
	config->history = VT_HISTORY_DEFAULT_BOUND;
	config->follow_fork = true;
	config->sample_ms = 10;
	config->python = true;
	config->python_depth = 128;
	config->control = true;
}

static const struct option *find_option(const char *name, size_t length)
{
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		if (strlen(options[i].name) == length &&
		    strncmp(options[i].name, name, length) == 0)
			return &options[i];
	return NULL;
}

static void apply(const char *entry, struct vt_config *config)
{
	const char *equals = strchr(entry, '=');
	if (!equals)
		return;
	size_t length = (size_t)(equals - entry);
	const struct option *option = find_option(entry, length);
	/* Shown escaped and cut short: the warning stays one whole line. */
	char shown[VT_WARN_TEXT_SIZE];
	if (!option) {
		vt_warn("unknown variable %s ignored",
			vt_warn_text_n(entry, length, shown, sizeof(shown)));
		return;
	}
	struct vt_config candidate = *config;
	if (option->parse(equals + 1, &candidate))
		*config = candidate;
	else
		vt_warn("%s='%s' is not valid (expected %s); using the default", option->name,
			vt_warn_text(equals + 1, shown, sizeof(shown)), option->expected);
}

void vt_config_load(struct vt_config *config)
{
	set_defaults(config);
	for (char **env = environ; env && *env; env++)
		if (strncmp(*env, "VRAMTRACE_", 10) == 0)
			apply(*env, config);
}

static struct vt_config process_config;

static void load_process_config(void)
{
	vt_config_load(&process_config);
}

/* Read on every event: once loaded, one acquire load and no call. */
const struct vt_config *vt_config(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	static atomic_bool loaded;
	if (atomic_load_explicit(&loaded, memory_order_acquire))
		return &process_config;
	int saved_errno = errno;
	pthread_once(&once, load_process_config);
	atomic_store_explicit(&loaded, true, memory_order_release);
	errno = saved_errno;
	return &process_config;
}
