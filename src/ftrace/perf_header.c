/* SPDX-License-Identifier: MIT */
/*
 * What a perf.data says about itself, apart from its records: the file
 * header with its attribute and feature sections (file mode), the
 * attribute and feature records of pipe mode, each attribute's sample
 * layout (where TID, TIME, CPU, ID and the variable part sit, in a
 * sample and in the sample_id trailer of other records) and the table
 * from event id to attribute.  perf.c walks the records with what this
 * file set up.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_int.h"

int hist__perf_err(struct hist_tracedat *td, int code, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(td->err, sizeof(td->err), "perf.data: ");

	va_start(ap, fmt);
	vsnprintf(td->err + n, sizeof(td->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}

int hist__perf_grow(void **ptr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 64;
	void *n;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	n = realloc(*ptr, ncap * elem);
	if (!n)
		return -1;
	*ptr = n;
	*cap = ncap;
	return 0;
}

int hist__perf_magic(const uint8_t *b)
{
	return !memcmp(b, "PERFILE2", 8) || !memcmp(b, "2ELIFREP", 8);
}

int hist__perf_is(const uint8_t *b, size_t len)
{
	return len >= 16 && hist__perf_magic(b);
}

/* ---- attributes ------------------------------------------------------- */

/* Fixed offsets of a sample's fields and of the sample_id trailer. */
static void attr_layout(struct pattr *a)
{
	uint64_t st = a->sample_type;
	uint32_t pos = 8, t = 0;

	a->s_tid = a->s_time = a->s_cpu = a->s_id = -1;
	if (st & S_IDENTIFIER)
		pos += 8;
	if (st & S_IP)
		pos += 8;
	if (st & S_TID) {
		a->s_tid = (int32_t)pos;
		pos += 8;
	}
	if (st & S_TIME) {
		a->s_time = (int32_t)pos;
		pos += 8;
	}
	if (st & S_ADDR)
		pos += 8;
	if (st & S_ID) {
		a->s_id = (int32_t)pos;
		pos += 8;
	}
	if (st & S_STREAM_ID)
		pos += 8;
	if (st & S_CPU) {
		a->s_cpu = (int32_t)pos;
		pos += 8;
	}
	if (st & S_PERIOD)
		pos += 8;
	a->s_var = pos;

	/* The trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER, in that
	 * order, ending at the record's end. */
	a->t_tid = a->t_time = a->t_cpu = a->t_id = -1;
	if (st & S_TID) {
		a->t_tid = (int32_t)t;
		t += 8;
	}
	if (st & S_TIME) {
		a->t_time = (int32_t)t;
		t += 8;
	}
	if (st & S_ID) {
		a->t_id = (int32_t)t;
		t += 8;
	}
	if (st & S_STREAM_ID)
		t += 8;
	if (st & S_CPU) {
		a->t_cpu = (int32_t)t;
		t += 8;
	}
	if (st & S_IDENTIFIER)
		t += 8;
	a->t_size = a->sample_id_all ? t : 0;
	/* turn "from the trailer start" into "back from the end" */
	if (a->t_tid >= 0)
		a->t_tid = (int32_t)(t - (uint32_t)a->t_tid);
	if (a->t_time >= 0)
		a->t_time = (int32_t)(t - (uint32_t)a->t_time);
	if (a->t_cpu >= 0)
		a->t_cpu = (int32_t)(t - (uint32_t)a->t_cpu);
	if (a->t_id >= 0)
		a->t_id = (int32_t)(t - (uint32_t)a->t_id);
	a->feed = a->type == ATTR_TYPE_TRACEPOINT && (st & S_RAW);
}

static int id_put(struct hist_tracedat *td, uint64_t id, uint32_t attr)
{
	struct hist__perf *p = td->perf;
	uint32_t i;

	if (!id)
		return 0;
	p->idc_key[id & 15] = 0;
	if ((p->id_used + 1) * 2 > p->id_cap) {
		uint32_t ncap = p->id_cap ? p->id_cap * 2 : 64, k;
		uint64_t *nk = calloc(ncap, sizeof(*nk));
		uint32_t *nv = calloc(ncap, sizeof(*nv));

		if (!nk || !nv) {
			free(nk);
			free(nv);
			return hist__perf_err(td, -HIST_ENOMEM, "out of memory");
		}
		for (k = 0; k < p->id_cap; k++) {
			if (!p->id_key[k])
				continue;
			i = hist__perf_id_slot(nk, ncap, p->id_key[k]);
			nk[i] = p->id_key[k];
			nv[i] = p->id_val[k];
		}
		free(p->id_key);
		free(p->id_val);
		p->id_key = nk;
		p->id_val = nv;
		p->id_cap = ncap;
	}
	i = hist__perf_id_slot(p->id_key, p->id_cap, id);
	p->id_used += !p->id_key[i];
	p->id_key[i] = id;
	p->id_val[i] = attr;
	return 0;
}

/* One perf_event_attr of SIZE bytes at B; the ids are added by the caller. */
static int add_attr(struct hist_tracedat *td, const uint8_t *b, uint32_t size,
		    uint64_t where)
{
	struct hist__perf *p = td->perf;
	struct pattr *a, *na;
	uint64_t flags;

	if (size < 64)
		return hist__perf_err(td, -HIST_EINVAL, "event attribute of %u bytes at offset %llu is too short",
			    size, (unsigned long long)where);
	if (p->nr_attrs >= MAX_ATTRS)
		return hist__perf_err(td, -HIST_EINVAL, "more than %u event attributes", MAX_ATTRS);
	na = realloc(p->attrs, (p->nr_attrs + 1) * sizeof(*na));
	if (!na)
		return hist__perf_err(td, -HIST_ENOMEM, "out of memory");
	p->attrs = na;
	a = &na[p->nr_attrs++];
	memset(a, 0, sizeof(*a));
	a->type = g32(p, b);
	a->config = g64(p, b + 8);
	a->period = g64(p, b + 16);
	a->sample_type = g64(p, b + 24);
	a->read_format = g64(p, b + 32);
	flags = g64(p, b + 40);
	a->freq = (flags >> 10) & 1;
	a->sample_id_all = (flags >> 18) & 1;
	a->use_clockid = (flags >> 25) & 1;
	if (size >= 96)
		a->clockid = (int32_t)g32(p, b + 92);
	attr_layout(a);
	p->same_type = p->nr_attrs == 1 ||
		       (p->same_type && a->sample_type == na[0].sample_type &&
			a->sample_id_all == na[0].sample_id_all);
	if (a->feed && (a->freq || a->period > 1))
		p->sampled = 1;
	return 0;
}

/* The id in the sample_id trailer of a non-sample record, 0 if none. */
uint64_t hist__perf_trailer_id(const struct hist__perf *p, const uint8_t *r, uint32_t size)
{
	const struct pattr *a0 = &p->attrs[0];

	if (!a0->sample_id_all || !a0->t_size || size < 8 + a0->t_size)
		return 0;
	if (a0->sample_type & S_IDENTIFIER)
		return g64(p, r + size - 8);
	return a0->t_id >= 0 ? g64(p, r + size - (uint32_t)a0->t_id) : 0;
}

uint32_t hist__perf_id_cpu(const struct hist__perf *p, uint64_t id)
{
	size_t i;

	for (i = 0; i < p->nr_idx; i++)
		if (p->idx[i][0] == id)
			return p->idx[i][1] < MAX_CPUS ? (uint32_t)p->idx[i][1] : 0;
	return 0;
}

/* ---- sections and metadata records ---------------------------------------- */

/* Note where the tracing data is; tracedat.c parses it after the open. */
void hist__perf_note_tdata(struct hist_tracedat *td, const uint8_t *b, uint64_t len,
			uint64_t where)
{
	struct hist__perf *p = td->perf;

	if (p->have_tracing_data)
		return;		/* perf inject may repeat it; the first one wins */
	p->have_tracing_data = 1;
	p->tdata = b;
	p->tdata_len = (size_t)len;
	p->tdata_off = where;
}

int hist__perf_pipe_attr(struct hist_tracedat *td, const uint8_t *r, uint32_t size, uint64_t off)
{
	struct hist__perf *p = td->perf;
	uint32_t asz, i, n;
	int ret;

	if (size < 8 + 8)
		return hist__perf_err(td, -HIST_EINVAL, "truncated attribute record at offset %llu",
			    (unsigned long long)off);
	asz = g32(p, r + 8 + 4);
	if (asz < 64 || asz > size - 8)
		return hist__perf_err(td, -HIST_EINVAL, "attribute record at offset %llu: bad size %u",
			    (unsigned long long)off, asz);
	if ((ret = add_attr(td, r + 8, asz, off + 8)))
		return ret;
	n = (size - 8 - asz) / 8;
	for (i = 0; i < n; i++)
		if ((ret = id_put(td, g64(p, r + 8 + asz + 8 * i), p->nr_attrs - 1)))
			return ret;
	return 0;
}

int hist__perf_feature(struct hist_tracedat *td, uint32_t feat, const uint8_t *b, uint64_t len,
		   uint64_t where)
{
	struct hist__perf *p = td->perf;

	if (feat == FEAT_TRACING_DATA)
	{
		hist__perf_note_tdata(td, b, len, where);
		return 0;
	}
	if ((feat == FEAT_HOSTNAME || feat == FEAT_OSRELEASE || feat == FEAT_ARCH) && len >= 4) {
		/* perf_header_string: u32 length (padding included), text */
		uint64_t n = g32(p, b);
		char *dst = feat == FEAT_HOSTNAME ? p->host :
			    feat == FEAT_OSRELEASE ? p->release : p->arch;
		size_t cap = feat == FEAT_ARCH ? sizeof(p->arch) : sizeof(p->host);

		if (n > len - 4)
			n = len - 4;
		n = strnlen((const char *)b + 4, (size_t)n);
		if (n >= cap)
			n = cap - 1;
		memcpy(dst, b + 4, (size_t)n);
		dst[n] = '\0';
		return 0;
	}
	if (feat == FEAT_DIR_FORMAT) {
		p->dir_format = 1;
		return 0;
	}
	if (feat == FEAT_NRCPUS && len >= 8) {
		uint32_t avail = g32(p, b + 4);

		if (avail && avail <= MAX_CPUS && avail > td->nr_cpus)
			td->nr_cpus = avail;
	}
	return 0;
}

int hist__perf_file_header(struct hist_tracedat *td, uint64_t *dstart, uint64_t *dend)
{
	struct hist__perf *p = td->perf;
	const uint8_t *h = p->map;
	uint64_t hsize = g64(p, h + 8), asz, aoff, alen, doff, dlen, foff, i;
	uint32_t bit, k = 0;
	int ret;

	if (p->map_len < 104 || hsize < 104)
		return hist__perf_err(td, -HIST_EINVAL, "truncated file header");
	asz = g64(p, h + 16);
	aoff = g64(p, h + 24);
	alen = g64(p, h + 32);
	doff = g64(p, h + 40);
	dlen = g64(p, h + 48);
	if (asz < 64 + 16 || asz > 4096)
		return hist__perf_err(td, -HIST_EINVAL, "bad attribute size %llu in the file header",
			    (unsigned long long)asz);
	if (aoff > p->map_len || alen > p->map_len - aoff)
		return hist__perf_err(td, -HIST_EINVAL, "attribute section (%llu bytes at offset %llu) is past the end of the file",
			    (unsigned long long)alen, (unsigned long long)aoff);
	for (i = 0; i + asz <= alen; i += asz) {
		const uint8_t *a = h + aoff + i;
		uint64_t ioff = g64(p, a + asz - 16), ilen = g64(p, a + asz - 8), j;

		if ((ret = add_attr(td, a, (uint32_t)(asz - 16), aoff + i)))
			return ret;
		if (ioff > p->map_len || ilen > p->map_len - ioff)
			return hist__perf_err(td, -HIST_EINVAL, "ids of attribute %llu (offset %llu) are past the end of the file",
				    (unsigned long long)(i / asz), (unsigned long long)ioff);
		for (j = 0; j + 8 <= ilen; j += 8)
			if ((ret = id_put(td, g64(p, h + ioff + j), p->nr_attrs - 1)))
				return ret;
	}
	if (!p->nr_attrs)
		return hist__perf_err(td, -HIST_EINVAL, "no event attributes");
	if (doff > p->map_len)
		return hist__perf_err(td, -HIST_EINVAL, "data offset %llu is past the end of the file",
			    (unsigned long long)doff);
	*dstart = doff;
	*dend = dlen > p->map_len - doff ? p->map_len : doff + dlen;
	if (dlen > p->map_len - doff) {
		snprintf(p->trunc, sizeof(p->trunc),
			 "the data section (%llu bytes at offset %llu) is cut at the end of the file (%zu bytes)",
			 (unsigned long long)dlen, (unsigned long long)doff, p->map_len);
		p->trunc_pending = 1;
		return 0;	/* the features sit after the data: gone */
	}
	/* one perf_file_section per feature bit set, in bit order */
	foff = doff + dlen;
	for (bit = 0; bit < FEAT_BITS; bit++) {
		uint64_t so, sl;

		if (!((g64(p, h + 72 + 8 * (bit / 64)) >> (bit % 64)) & 1))
			continue;
		if (p->map_len - foff < 16 * (uint64_t)(k + 1)) {
			snprintf(p->feat_cut, sizeof(p->feat_cut),
				 "the file is cut short (%zu bytes): its feature table at offset %llu ends before feature %u; the features from there on are lost",
				 p->map_len, (unsigned long long)foff, bit);
			break;
		}
		so = g64(p, h + foff + 16 * k);
		sl = g64(p, h + foff + 16 * k + 8);
		k++;
		if (so > p->map_len || sl > p->map_len - so) {
			if (bit == FEAT_TRACING_DATA)
				return hist__perf_err(td, -HIST_EINVAL, "the file is cut short: its tracing data (%llu bytes at offset %llu) is past the end",
					    (unsigned long long)sl, (unsigned long long)so);
			if (!p->feat_cut[0])
				snprintf(p->feat_cut, sizeof(p->feat_cut),
					 "the file is cut short (%zu bytes): feature %u%s (%llu bytes at offset %llu) and those after it are lost",
					 p->map_len, bit,
					 bit == FEAT_OSRELEASE ? ", the kernel release," :
					 bit == FEAT_HOSTNAME ? ", the host name," :
					 bit == FEAT_ARCH ? ", the arch," :
					 bit == FEAT_NRCPUS ? ", the CPU count," : "",
					 (unsigned long long)sl, (unsigned long long)so);
			continue;
		}
		if ((ret = hist__perf_feature(td, bit, h + so, sl, so)))
			return ret;
	}
	return 0;
}

/* ---- perf record --threads: a directory ------------------------------------ */

char *hist__perf_dir_header(const char *path)
{
	size_t n = strlen(path);
	char *hdr = malloc(n + sizeof("/data"));
	uint8_t magic[8];
	struct stat st;
	int fd, ok;

	if (!hdr || stat(path, &st) || !S_ISDIR(st.st_mode)) {
		free(hdr);
		return NULL;
	}
	memcpy(hdr, path, n);
	memcpy(hdr + n, "/data", sizeof("/data"));
	fd = open(hdr, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ok = fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	     read(fd, magic, 8) == 8 && hist__perf_magic(magic);
	if (fd >= 0)
		close(fd);
	if (!ok) {
		free(hdr);
		return NULL;
	}
	return hdr;
}

/* Append file PATH (SIZE bytes) to p->xbuf; 0, or -1 with errno set. */
static int read_into(struct hist__perf *p, int fd, size_t size, size_t *cap)
{
	size_t got = 0, have = (size_t)(p->dbase - p->map_len);

	if (hist__perf_grow((void **)&p->xbuf, cap, have + size + 1, 1))
		return -1;
	while (got < size) {
		ssize_t n = read(fd, p->xbuf + have + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;	/* shrank while we read it */
			return -1;
		}
		got += (size_t)n;
	}
	return 0;
}

int hist__perf_load_dir(struct hist_tracedat *td)
{
	struct hist__perf *p = td->perf;
	size_t cap = 0, n = strlen(td->perf_dir) + 32;
	char *path = malloc(n);
	uint32_t k;
	int ret = 0;

	if (!path)
		return hist__perf_err(td, -HIST_ENOMEM, "out of memory");
	/* data.0, data.1, ...: one per recording thread, numbered densely */
	for (k = 0;; k++) {
		struct stat st;
		int fd;

		snprintf(path, n, "%s/data.%u", td->perf_dir, k);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0 && errno == ENOENT)
			break;
		if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			ret = hist__perf_err(td, -HIST_EINVAL, "%s: %s", path,
					     fd < 0 ? strerror(errno) : "not a regular file");
			if (fd >= 0)
				close(fd);
			break;
		}
		if ((uint64_t)st.st_size > E_OFF_MASK - p->dbase ||
		    hist__perf_grow((void **)&p->segs, &p->cap_segs, p->nr_segs + 1,
				    sizeof(*p->segs))) {
			close(fd);
			ret = hist__perf_err(td, -HIST_ENOMEM, "%s: too large to read", path);
			break;
		}
		if (read_into(p, fd, (size_t)st.st_size, &cap)) {
			ret = hist__perf_err(td, -HIST_EINVAL, "cannot read %s: %s", path,
					     strerror(errno));
			close(fd);
			break;
		}
		close(fd);
		p->segs[p->nr_segs][0] = p->dbase;
		p->dbase += (uint64_t)st.st_size;
		p->segs[p->nr_segs++][1] = p->dbase;
	}
	if (!ret && !k)
		ret = hist__perf_err(td, -HIST_EINVAL, "%s: no data.0 next to the header file "
				     "(a perf record --threads directory)", td->perf_dir);
	free(path);
	return ret;
}

const char *hist__perf_where(const struct hist__perf *p, uint64_t off, char *buf, size_t len)
{
	size_t k;

	for (k = 1; k < p->nr_segs && off >= p->map_len && off < p->dbase; k++)
		if (off >= p->segs[k][0] && off < p->segs[k][1]) {
			snprintf(buf, len, "data.%u offset %llu", (unsigned)k - 1,
				 (unsigned long long)(off - p->segs[k][0]));
			return buf;
		}
	snprintf(buf, len, "offset %llu", (unsigned long long)off);
	return buf;
}
