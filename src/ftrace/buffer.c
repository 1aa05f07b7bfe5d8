/* SPDX-License-Identifier: MIT */
/*
 * The ring buffers of a trace.dat and where each one's per-CPU data lies:
 * the CPU tables checked against the file (a cut, a damaged chunk count),
 * the CPU data of a cut v7 file found again by its layout, the lost-event
 * tables sized, and the buffer the streams walk chosen.  tracedat.c reads
 * the tables out of the file's headers and options; stream.c walks the
 * data located here.
 *
 * A damaged or cut file is not refused when records remain before the
 * damage: what is missing is written to td->damage (the first damage) or
 * to the stream's cut[] (the CPU's own), and reported after the last good
 * record.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"

/* ---- damage ------------------------------------------------------- */

void hist__note_damage(struct hist_tracedat *td, const char *fmt, ...)
{
	va_list ap;

	if (td->damage[0])
		return;
	va_start(ap, fmt);
	vsnprintf(td->damage, sizeof(td->damage), fmt, ap);
	va_end(ap);
}

/* ---- per-CPU data --------------------------------------------------- */

int hist__buf_add(struct hist_tracedat *td, const char *name, const char *clock,
		  uint32_t page_size, uint32_t nr_cpus, struct hist__buffer **out)
{
	struct hist__buffer *b;

	if (td->nr_bufs >= 4096)
		return hist__td_err(td, -HIST_EINVAL, "more than 4096 buffers");
	b = realloc(td->bufs, (td->nr_bufs + 1) * sizeof(*b));
	if (!b)
		return hist__td_err(td, -HIST_ENOMEM, "out of memory");
	td->bufs = b;
	b = &td->bufs[td->nr_bufs];
	memset(b, 0, sizeof(*b));
	b->name = strdup(name);
	b->cpus = calloc(nr_cpus ? nr_cpus : 1, sizeof(*b->cpus));
	if (!b->name || !b->cpus) {
		free(b->name);
		free(b->cpus);
		return hist__td_err(td, -HIST_ENOMEM, "out of memory");
	}
	b->nr_cpus = nr_cpus;
	b->page_size = page_size;
	snprintf(b->clock, sizeof(b->clock), "%s", clock);
	td->nr_bufs++;
	*out = b;
	return 0;
}

int hist__buf_setup_cpus(struct hist_tracedat *td, const struct hist__cpu_ent *cpus,
		      uint32_t nr_ent, int compressed)
{
	uint32_t ps = td->pfmt.page_size, i, max_cpu = 0;

	if (!nr_ent)
		goto lost;
	td->streams = calloc(nr_ent, sizeof(*td->streams));
	td->heap = calloc(nr_ent, sizeof(*td->heap));
	if (!td->streams || !td->heap)
		return hist__td_err(td, -HIST_ENOMEM, "out of memory");
	for (i = 0; i < nr_ent; i++) {
		const struct hist__cpu_ent *e = &cpus[i];
		struct hist__stream *s = &td->streams[td->nr_streams];

		if (e->cpu >= HIST__MAX_CPUS)
			return hist__td_err(td, -HIST_EINVAL, "CPU id %u out of range", e->cpu);
		if (e->cpu > max_cpu)
			max_cpu = e->cpu;
		if (!e->size)
			continue;	/* this CPU recorded nothing */
		s->cpu = e->cpu;
		s->off = e->off;
		if (e->off >= td->map_len) {
			/* cut before this CPU's data: an empty stream that
			 * reports the loss when the walk reaches its end */
			snprintf(s->cut, sizeof(s->cut),
				 "truncated CPU %u data at offset %llu (%llu bytes, none in the file of %zu bytes)",
				 e->cpu, (unsigned long long)e->off,
				 (unsigned long long)e->size, td->map_len);
			s->off = td->map_len;
			s->size = 0;
			td->nr_streams++;
			continue;
		}
		if (compressed) {
			/* Chunks are counted, not sized: trace-cmd 3.1.6 and
			 * older store a size 4 bytes short.  Check every
			 * chunk header now, so the walk only decompresses.
			 * A file cut inside the chunks keeps the whole ones. */
			uint64_t pos = e->off + 4, n, end = e->off + e->size;
			uint32_t nr;

			if (td->map_len - e->off < 4) {
				snprintf(s->cut, sizeof(s->cut),
					 "truncated CPU %u chunk count at offset %llu",
					 e->cpu, (unsigned long long)e->off);
				nr = 0;
			} else {
				nr = hist__get32(td->map + e->off, td->big_endian);
			}
			/*
			 * The chunks must end where the CPU's data does (or 4
			 * bytes past it, the old size): walk them to there,
			 * whatever the count says, so that a damaged count is
			 * seen and costs no record.
			 */
			for (n = 0; !s->cut[0] && pos < end; n++) {
				uint32_t clen, ulen;

				if (td->map_len - pos < 8) {
					snprintf(s->cut, sizeof(s->cut),
						 "truncated CPU %u data: chunk %llu of %u, header at offset %llu, is cut off",
						 e->cpu, (unsigned long long)n, nr,
						 (unsigned long long)pos);
					break;
				}
				clen = hist__get32(td->map + pos, td->big_endian);
				ulen = hist__get32(td->map + pos + 4, td->big_endian);
				if (clen > td->map_len - pos - 8) {
					snprintf(s->cut, sizeof(s->cut),
						 "truncated CPU %u data: chunk %llu of %u at offset %llu (%u bytes, %llu left)",
						 e->cpu, (unsigned long long)n, nr,
						 (unsigned long long)pos, clen,
						 (unsigned long long)(td->map_len - pos - 8));
					break;
				}
				if (ulen > HIST__MAX_CHUNK_BYTES || ulen % ps)
					return hist__td_err(td, -HIST_EINVAL,
							    "CPU %u chunk %llu at offset %llu: size %u is not a whole number of %u-byte pages",
							    e->cpu, (unsigned long long)n,
							    (unsigned long long)pos, ulen, ps);
				pos += 8 + (uint64_t)clen;
			}
			if (!s->cut[0] && pos > end + 4)
				hist__note_damage(td, "CPU %u: chunk %llu ends at offset %llu, past the "
					    "end of the CPU's data (%llu)", e->cpu,
					    (unsigned long long)n - 1, (unsigned long long)pos,
					    (unsigned long long)end);
			else if (!s->cut[0] && n != nr)
				hist__note_damage(td, "CPU %u: damaged chunk count at offset %llu: it says "
					    "%u, the CPU's data holds %llu chunks (all were read)",
					    e->cpu, (unsigned long long)e->off, nr,
					    (unsigned long long)n);
			s->compressed = 1;
			s->off = e->off + 4;
			s->nr_chunks = (uint32_t)n;
			s->size = pos - s->off;
		} else {
			if (e->size % ps)
				return hist__td_err(td, -HIST_EINVAL,
						    "CPU %u data at offset %llu: %llu bytes is not a whole number of %u-byte pages",
						    e->cpu, (unsigned long long)e->off,
						    (unsigned long long)e->size, ps);
			s->size = e->size;
			if (e->size > td->map_len - e->off) {
				/* the whole pages that made it */
				snprintf(s->cut, sizeof(s->cut),
					 "truncated CPU %u data at offset %llu (%llu bytes, %llu in the file)",
					 e->cpu, (unsigned long long)e->off,
					 (unsigned long long)e->size,
					 (unsigned long long)(td->map_len - e->off));
				s->size = (td->map_len - e->off) / ps * ps;
			}
		}
		td->nr_streams++;
	}
lost:
	td->nr_cpus = td->cpucount;
	if (nr_ent && max_cpu + 1 > td->nr_cpus)
		td->nr_cpus = max_cpu + 1;
	td->nr_lost = td->nr_cpus;
	td->lost = calloc(td->nr_lost ? td->nr_lost : 1, sizeof(*td->lost));
	td->lost_unknown = calloc(td->nr_lost ? td->nr_lost : 1, sizeof(*td->lost_unknown));
	if (!td->lost || !td->lost_unknown)
		return hist__td_err(td, -HIST_ENOMEM, "out of memory");
	return 0;
}

int hist__buf_page_size(struct hist_tracedat *td, uint32_t ps)
{
	if (!td->have_pfmt)
		return hist__td_err(td, -HIST_EINVAL, "no header_page in the file");
	if (ps < td->pfmt.data_offset + 8 || ps > HIST__MAX_PAGE_SIZE)
		return hist__td_err(td, -HIST_EINVAL, "bad sub-buffer size %u", ps);
	td->pfmt.page_size = ps;
	return 0;
}

static uint64_t page_up(uint64_t v, uint32_t ps)
{
	return (v + ps - 1) / ps * ps;
}

/*
 * trace-cmd 3.x writes the BUFFER option, the only map of the CPU data,
 * in an options section after the data: a recording cut short loses it.
 * The data keeps its own layout, though: each CPU's chunks (u32 count,
 * then u32 compressed size, u32 size, a zstd frame each) start at the
 * next host page after the previous CPU's, in CPU order, from the first
 * page of the buffer section's body.  Take the CPUs that layout shows
 * (up to the CPUCOUNT option) and say that they were inferred.
 */
int hist__buf_recover(struct hist_tracedat *td, uint64_t body,
		      struct hist__cpu_ent **out, uint32_t *nr_out)
{
	uint32_t ps = td->host_page_size, i, n = 0, want = td->cpucount;
	struct hist__cpu_ent *cpus;
	uint64_t pos;

	if (!want || want > HIST__MAX_CPUS || ps < 512 || ps > HIST__MAX_PAGE_SIZE ||
	    hist__buf_page_size(td, ps))
		return -1;
	cpus = calloc(want, sizeof(*cpus));
	if (!cpus)
		return -1;
	pos = page_up(body, ps);
	for (i = 0; i < want && pos + 4 <= td->map_len; i++) {
		uint32_t nr = hist__get32(td->map + pos, td->big_endian), k;
		uint64_t p = pos + 4;

		for (k = 0; k < nr && td->map_len - p >= 12; k++) {
			uint32_t clen = hist__get32(td->map + p, td->big_endian);
			uint32_t ulen = hist__get32(td->map + p + 4, td->big_endian);

			/* a zstd frame starts with its magic, 28 b5 2f fd */
			if (!ulen || ulen % ps || ulen > HIST__MAX_CHUNK_BYTES ||
			    memcmp(td->map + p + 8, "\x28\xb5\x2f\xfd", 4))
				break;
			p += 8 + (uint64_t)clen;
			if (p > td->map_len)
				break;	/* hist__buf_setup_cpus() reports the cut chunk */
		}
		if (k < nr && p <= td->map_len && td->map_len - p >= 12)
			break;		/* not chunks: the layout guess is wrong */
		cpus[n].cpu = i;
		cpus[n].off = pos;
		cpus[n].size = p - pos;
		n++;
		if (p >= td->map_len)
			break;
		pos = page_up(p, ps);
	}
	if (!n) {
		free(cpus);
		return -1;
	}
	*out = cpus;
	*nr_out = n;
	{
		size_t l = strlen(td->damage);

		snprintf(td->damage + l, sizeof(td->damage) - l,
			 "; the BUFFER option went with it: the data of %u CPU%s found by its layout",
			 n, n == 1 ? "" : "s");
	}
	return 0;
}

int hist__buf_use(struct hist_tracedat *td, uint32_t k)
{
	const struct hist__buffer *b = &td->bufs[k];
	int ret = hist__buf_page_size(td, b->page_size ? b->page_size : td->host_page_size);

	if (ret)
		return ret;
	td->cur_buf = k;
	snprintf(td->clock, sizeof(td->clock), "%s", b->clock);
	return hist__buf_setup_cpus(td, b->cpus, b->nr_cpus, b->compressed);
}

/* ---- buffers ------------------------------------------------------------ */

uint32_t hist_tracedat_nr_buffers(const struct hist_tracedat *td)
{
	return td->nr_bufs ? td->nr_bufs : 1;
}

const char *hist_tracedat_buffer_name(const struct hist_tracedat *td, uint32_t i)
{
	if (!td->nr_bufs)
		return i == 0 ? "" : NULL;
	return i < td->nr_bufs ? td->bufs[i].name : NULL;
}

const char *hist_tracedat_buffer(const struct hist_tracedat *td)
{
	return td->nr_bufs ? td->bufs[td->cur_buf].name : "";
}

int hist_tracedat_select_buffer(struct hist_tracedat *td, const char *name)
{
	uint32_t k;
	int ret;

	for (k = 0; k < td->nr_bufs && strcmp(td->bufs[k].name, name); k++)
		;
	if (k == td->nr_bufs) {
		if (!td->nr_bufs && !name[0])
			return hist_tracedat_rewind(td);
		return hist__td_err(td, -HIST_ENOENT, "no buffer '%.64s' in the file", name);
	}
	if (td->bufs[k].bad[0])
		return hist__td_err(td, -HIST_EINVAL, "%s", td->bufs[k].bad);
	td->err[0] = '\0';
	hist__streams_free(td);
	ret = hist__buf_use(td, k);
	if (ret) {
		/* leave a valid, empty stream set behind */
		hist__streams_free(td);
		hist__buf_setup_cpus(td, NULL, 0, 0);
		hist__streams_start(td);
		return ret;
	}
	return hist__streams_start(td);
}
