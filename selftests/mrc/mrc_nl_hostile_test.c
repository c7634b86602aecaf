// SPDX-License-Identifier: GPL-2.0
/*
 * The "mrc" generic netlink family against hostile input, spoken raw over a
 * libc netlink socket (no libnl in the guest): wrong attribute types and
 * lengths, out-of-range ids, too-long segment lists, too many paths, missing
 * required attributes, unknown attributes under strict validation, nested
 * garbage, reserved header flags. Every refusal must come back with the
 * expected errno AND extack text (NLMSGERR_ATTR_MSG), and where the kernel
 * names an attribute (NLMSGERR_ATTR_OFFS) it must be the one we broke.
 * Every value check of mrc.ko (ranges, address lengths, at every nesting
 * level and in dumps) must answer EINVAL - never the core's ERANGE - with a
 * message naming the attribute and, in NLMSGERR_ATTR_POLICY, the allowed
 * range; the values at the bounds must be accepted.
 * Each test runs in a fresh network namespace (unshare), which also
 * exercises the namespace teardown with configuration present.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/mrc.h>

#include "kselftest_harness.h"

#define BUFSZ	(128 * 1024)

struct req {
	union {
		struct nlmsghdr nlh;
		char buf[BUFSZ];
	};
};

struct ack {
	int error;		/* positive errno, 0 for success */
	char msg[256];		/* NLMSGERR_ATTR_MSG */
	int offs;		/* NLMSGERR_ATTR_OFFS or -1 */
	int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE or -1 */
	int64_t pol_min;	/* NLMSGERR_ATTR_POLICY: min value/length or -1 */
	int64_t pol_max;	/* max value/length or -1 */
	int nreplies;		/* data messages before the ack/done */
	int last_cmd;		/* genl cmd of the last data message */
};

static void req_init(struct req *r, int type, int cmd, int flags)
{
	struct genlmsghdr *g;

	memset(r->buf, 0, NLMSG_LENGTH(GENL_HDRLEN));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = type;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | flags;
	g = NLMSG_DATA(&r->nlh);
	g->cmd = cmd;
	g->version = MRC_GENL_VERSION;
}

/* Append an attribute; returns its offset in the message. */
static int put(struct req *r, int type, const void *data, int len)
{
	int off = NLMSG_ALIGN(r->nlh.nlmsg_len);
	struct nlattr *a = (struct nlattr *)(r->buf + off);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nlh.nlmsg_len = off + NLA_ALIGN(a->nla_len);
	return off;
}

static int put_u32(struct req *r, int type, uint32_t v)
{
	return put(r, type, &v, sizeof(v));
}

static int put_u8(struct req *r, int type, uint8_t v)
{
	return put(r, type, &v, sizeof(v));
}

static int put_in6(struct req *r, int type, const char *s)
{
	struct in6_addr a;

	if (inet_pton(AF_INET6, s, &a) != 1)
		abort();
	return put(r, type, &a, sizeof(a));
}

static int nest_start(struct req *r, int type)
{
	return put(r, type | NLA_F_NESTED, NULL, 0);
}

static void nest_end(struct req *r, int off)
{
	((struct nlattr *)(r->buf + off))->nla_len = r->nlh.nlmsg_len - off;
}

static int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1, fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The range or length limits of an NLMSGERR_ATTR_POLICY nest. */
static void parse_policy(struct nlattr *pol, struct ack *a)
{
	struct nlattr *at = (struct nlattr *)((char *)pol + NLA_HDRLEN);
	int rem = pol->nla_len - NLA_HDRLEN;

	while (rem >= NLA_HDRLEN && at->nla_len >= NLA_HDRLEN && at->nla_len <= rem) {
		void *d = (char *)at + NLA_HDRLEN;
		uint64_t v = at->nla_len - NLA_HDRLEN == 8 ? *(uint64_t *)d : *(uint32_t *)d;

		switch (at->nla_type & NLA_TYPE_MASK) {
		case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:
		case NL_POLICY_TYPE_ATTR_MIN_LENGTH:
			a->pol_min = (int64_t)v;
			break;
		case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:
		case NL_POLICY_TYPE_ATTR_MAX_LENGTH:
			a->pol_max = (int64_t)v;
			break;
		}
		rem -= NLA_ALIGN(at->nla_len);
		at = (struct nlattr *)((char *)at + NLA_ALIGN(at->nla_len));
	}
}

/* The TLVs of an extended ack (@len bytes at @at). */
static void parse_tlvs(struct nlattr *at, int rem, struct ack *a)
{
	while (rem >= NLA_HDRLEN && at->nla_len >= NLA_HDRLEN && at->nla_len <= rem) {
		void *d = (char *)at + NLA_HDRLEN;

		switch (at->nla_type & NLA_TYPE_MASK) {
		case NLMSGERR_ATTR_MSG:
			snprintf(a->msg, sizeof(a->msg), "%s", (char *)d);
			break;
		case NLMSGERR_ATTR_OFFS:
			a->offs = *(uint32_t *)d;
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			a->miss_type = *(uint32_t *)d;
			break;
		case NLMSGERR_ATTR_POLICY:
			parse_policy(at, a);
			break;
		}
		rem -= NLA_ALIGN(at->nla_len);
		at = (struct nlattr *)((char *)at + NLA_ALIGN(at->nla_len));
	}
}

static void parse_ext_ack(struct nlmsghdr *nlh, struct ack *a)
{
	struct nlmsgerr *e = NLMSG_DATA(nlh);
	size_t off = sizeof(*e);

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	parse_tlvs((struct nlattr *)((char *)e + off),
		   (int)nlh->nlmsg_len - NLMSG_HDRLEN - (int)off, a);
}

/* NLMSG_DONE of a dump: its errno and, after it, the extack message. */
static void parse_done(struct nlmsghdr *nlh, struct ack *a)
{
	int off = NLA_ALIGN(sizeof(int));

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(int)))
		return;
	a->error = -*(int *)NLMSG_DATA(nlh);
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		parse_tlvs((struct nlattr *)((char *)NLMSG_DATA(nlh) + off),
			   (int)nlh->nlmsg_len - NLMSG_HDRLEN - off, a);
}

typedef void (*reply_fn)(struct nlmsghdr *nlh, void *arg);

/* Send one request and read until its ack (do) or NLMSG_DONE (dump). */
static int transact(int fd, struct req *r, struct ack *a, reply_fn fn, void *arg)
{
	static char rbuf[BUFSZ];
	static uint32_t seq = 1;

	memset(a, 0, sizeof(*a));
	a->offs = -1;
	a->miss_type = -1;
	a->pol_min = -1;
	a->pol_max = -1;
	a->last_cmd = -1;
	r->nlh.nlmsg_seq = ++seq;
	if (send(fd, r->buf, r->nlh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(fd, rbuf, sizeof(rbuf), 0);
		struct nlmsghdr *nlh;

		if (n < 0)
			return -errno;
		for (nlh = (struct nlmsghdr *)rbuf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				a->error = -((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
				parse_ext_ack(nlh, a);
				return 0;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				parse_done(nlh, a);
				return 0;
			}
			a->nreplies++;
			a->last_cmd = ((struct genlmsghdr *)NLMSG_DATA(nlh))->cmd;
			if (fn)
				fn(nlh, arg);
		}
	}
}

struct family_info {
	int id;
	int events_grp;
};

static void family_reply(struct nlmsghdr *nlh, void *arg)
{
	struct family_info *fi = arg;
	struct nlattr *at = (struct nlattr *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
	int rem = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

	for (; rem >= NLA_HDRLEN; rem -= NLA_ALIGN(at->nla_len),
	     at = (struct nlattr *)((char *)at + NLA_ALIGN(at->nla_len))) {
		int type = at->nla_type & NLA_TYPE_MASK;

		if (type == CTRL_ATTR_FAMILY_ID)
			fi->id = *(uint16_t *)((char *)at + NLA_HDRLEN);
		if (type == CTRL_ATTR_MCAST_GROUPS) {
			/* nested array of nests { name, id } */
			struct nlattr *g = (struct nlattr *)((char *)at + NLA_HDRLEN);
			int grem = at->nla_len - NLA_HDRLEN;

			for (; grem >= NLA_HDRLEN; grem -= NLA_ALIGN(g->nla_len),
			     g = (struct nlattr *)((char *)g + NLA_ALIGN(g->nla_len))) {
				struct nlattr *f = (struct nlattr *)((char *)g + NLA_HDRLEN);
				int frem = g->nla_len - NLA_HDRLEN, gid = -1;
				const char *name = NULL;

				for (; frem >= NLA_HDRLEN; frem -= NLA_ALIGN(f->nla_len),
				     f = (struct nlattr *)((char *)f + NLA_ALIGN(f->nla_len))) {
					if (f->nla_type == CTRL_ATTR_MCAST_GRP_NAME)
						name = (char *)f + NLA_HDRLEN;
					if (f->nla_type == CTRL_ATTR_MCAST_GRP_ID)
						gid = *(uint32_t *)((char *)f + NLA_HDRLEN);
				}
				if (name && !strcmp(name, MRC_GENL_MCGRP_EVENTS))
					fi->events_grp = gid;
			}
		}
	}
}

static struct family_info resolve(int fd)
{
	struct family_info fi = { -1, -1 };
	struct req r;
	struct ack a;

	req_init(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK);
	put(&r, CTRL_ATTR_FAMILY_NAME, MRC_GENL_NAME, sizeof(MRC_GENL_NAME));
	if (transact(fd, &r, &a, family_reply, &fi) || a.error)
		fi.id = -1;
	return fi;
}

FIXTURE(nl) {
	int fd;
	int fam;
	int grp;
	struct req r;
	struct ack a;
};

FIXTURE_SETUP(nl)
{
	struct family_info fi;

	ASSERT_EQ(0, unshare(CLONE_NEWNET)) TH_LOG("unshare: %s", strerror(errno));
	self->fd = nl_open();
	ASSERT_LE(0, self->fd);
	fi = resolve(self->fd);
	ASSERT_LT(0, fi.id) TH_LOG("family \"mrc\" not found: is mrc.ko loaded?");
	self->fam = fi.id;
	self->grp = fi.events_grp;
}

FIXTURE_TEARDOWN(nl)
{
	close(self->fd);
}

/* Start a request of the family (do, with ack). */
#define START(cmd) req_init(&self->r, self->fam, (cmd), NLM_F_ACK)
#define RUN()	   ASSERT_EQ(0, transact(self->fd, &self->r, &self->a, NULL, NULL))
/* Expect a refusal with this errno and exactly this extack text. */
#define EXPECT_REFUSED(err, text) do {					\
	RUN();								\
	EXPECT_EQ((err), self->a.error);				\
	EXPECT_STREQ((text), self->a.msg);				\
} while (0)
#define EXPECT_OK() do {						\
	RUN();								\
	EXPECT_EQ(0, self->a.error) TH_LOG("refused: %s", self->a.msg); \
} while (0)
/*
 * Expect a value check's refusal: EINVAL (not ERANGE), exactly this text,
 * the attribute at @off and the allowed range (or length) @lo..@hi in
 * NLMSGERR_ATTR_POLICY.
 */
#define EXPECT_BAD_VALUE(text, off, lo, hi) do {			\
	EXPECT_REFUSED(EINVAL, (text));					\
	EXPECT_EQ((off), self->a.offs);					\
	EXPECT_EQ((int64_t)(lo), self->a.pol_min);			\
	EXPECT_EQ((int64_t)(hi), self->a.pol_max);			\
} while (0)

static void plane_add(struct req *r, int fam, uint32_t id)
{
	req_init(r, fam, MRC_CMD_PLANE_ADD, NLM_F_ACK);
	put_u32(r, MRC_ATTR_PLANE_ID, id);
	put_u32(r, MRC_ATTR_IFINDEX, 1);	/* lo */
	put_in6(r, MRC_ATTR_SADDR, "2001:db8::1");
}

TEST_F(nl, plane_round_trip)
{
	plane_add(&self->r, self->fam, 0);
	EXPECT_OK();
	plane_add(&self->r, self->fam, 0);
	EXPECT_REFUSED(EEXIST, "mrc: plane id already exists");

	START(MRC_CMD_PLANE_GET);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 0);
	EXPECT_OK();
	EXPECT_EQ(1, self->a.nreplies);
	EXPECT_EQ(MRC_CMD_PLANE_GET, self->a.last_cmd);

	START(MRC_CMD_PLANE_DEL);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 0);
	EXPECT_OK();
	EXPECT_REFUSED(ENOENT, "mrc: plane does not exist");
}

TEST_F(nl, plane_id_out_of_range)
{
	static const int cmds[] = {
		MRC_CMD_PLANE_ADD, MRC_CMD_PLANE_SET, MRC_CMD_PLANE_DEL, MRC_CMD_PLANE_GET,
	};
	unsigned int i;
	int off;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		START(cmds[i]);
		off = put_u32(&self->r, MRC_ATTR_PLANE_ID, MRC_PLANE_ID_MAX + 1);
		if (cmds[i] == MRC_CMD_PLANE_ADD || cmds[i] == MRC_CMD_PLANE_SET) {
			put_u32(&self->r, MRC_ATTR_IFINDEX, 1);
			put_in6(&self->r, MRC_ATTR_SADDR, "2001:db8::1");
		}
		EXPECT_BAD_VALUE("plane-id out of range", off, 0, MRC_PLANE_ID_MAX);
	}

	START(MRC_CMD_PLANE_DEL);
	off = put_u32(&self->r, MRC_ATTR_PLANE_ID, 0xffffffff);
	EXPECT_BAD_VALUE("plane-id out of range", off, 0, MRC_PLANE_ID_MAX);

	/* the highest id is a plane id */
	plane_add(&self->r, self->fam, MRC_PLANE_ID_MAX);
	EXPECT_OK();

	/* a dump refuses it too: the message in NLMSG_DONE, no offset there */
	req_init(&self->r, self->fam, MRC_CMD_PLANE_GET, NLM_F_DUMP);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, MRC_PLANE_ID_MAX + 1);
	RUN();
	EXPECT_EQ(EINVAL, self->a.error);
	EXPECT_STREQ("plane-id out of range", self->a.msg);
	EXPECT_EQ(0, self->a.nreplies);
	req_init(&self->r, self->fam, MRC_CMD_PLANE_GET, NLM_F_DUMP);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, MRC_PLANE_ID_MAX);
	RUN();
	EXPECT_EQ(0, self->a.error);
	EXPECT_EQ(1, self->a.nreplies);
}

TEST_F(nl, plane_values)
{
	int off;

	START(MRC_CMD_PLANE_ADD);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 0);
	off = put_u32(&self->r, MRC_ATTR_IFINDEX, 0);
	put_in6(&self->r, MRC_ATTR_SADDR, "2001:db8::1");
	EXPECT_BAD_VALUE("ifindex out of range", off, 1, UINT32_MAX);

	START(MRC_CMD_PLANE_ADD);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 0);
	put_u32(&self->r, MRC_ATTR_IFINDEX, 1);
	put_in6(&self->r, MRC_ATTR_SADDR, "2001:db8::1");
	off = put_u8(&self->r, MRC_ATTR_ADMIN_UP, 2);
	EXPECT_BAD_VALUE("admin-up out of range", off, 0, 1);

	/* an address one byte short, one byte long */
	START(MRC_CMD_PLANE_ADD);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 0);
	put_u32(&self->r, MRC_ATTR_IFINDEX, 1);
	off = put(&self->r, MRC_ATTR_SADDR, "0123456789abcde", 15);
	EXPECT_BAD_VALUE("saddr must be 16 bytes", off, 16, 16);
	START(MRC_CMD_PLANE_SET);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 0);
	off = put(&self->r, MRC_ATTR_SADDR, "0123456789abcdef", 17);
	EXPECT_BAD_VALUE("saddr must be 16 bytes", off, 16, 16);

	/* the bounds themselves are fine */
	START(MRC_CMD_PLANE_ADD);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 0);
	put_u32(&self->r, MRC_ATTR_IFINDEX, 1);
	put_in6(&self->r, MRC_ATTR_SADDR, "2001:db8::1");
	put_u8(&self->r, MRC_ATTR_ADMIN_UP, 1);
	EXPECT_OK();
	START(MRC_CMD_PLANE_SET);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 0);
	put_u8(&self->r, MRC_ATTR_ADMIN_UP, 0);
	EXPECT_OK();
}

TEST_F(nl, wrong_types)
{
	int off;

	/* u32 attribute sent as u8 */
	START(MRC_CMD_PLANE_DEL);
	off = put_u8(&self->r, MRC_ATTR_PLANE_ID, 0);
	EXPECT_REFUSED(EINVAL, "invalid attribute length");
	EXPECT_EQ(off, self->a.offs);

	/* 16-byte address sent as 4 bytes */
	START(MRC_CMD_PLANE_ADD);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 0);
	put_u32(&self->r, MRC_ATTR_IFINDEX, 1);
	off = put_u32(&self->r, MRC_ATTR_SADDR, 0x20010db8);
	EXPECT_BAD_VALUE("saddr must be 16 bytes", off, 16, 16);

	/* string without its NUL */
	START(MRC_CMD_PLANE_ADD);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 0);
	off = put(&self->r, MRC_ATTR_IFNAME, "lo", 2);
	put_in6(&self->r, MRC_ATTR_SADDR, "2001:db8::1");
	EXPECT_REFUSED(EINVAL, "Attribute failed policy validation");
	EXPECT_EQ(off, self->a.offs);

	/* nested attribute sent as a plain u32 */
	START(MRC_CMD_ROUTE_ADD);
	put_in6(&self->r, MRC_ATTR_DST, "fc00::");
	put_u8(&self->r, MRC_ATTR_DST_LEN, 16);
	off = put_u32(&self->r, MRC_ATTR_PATH, 0);
	EXPECT_REFUSED(EINVAL, "NLA_F_NESTED is missing");
	EXPECT_EQ(off, self->a.offs);
}

TEST_F(nl, missing_required)
{
	START(MRC_CMD_PLANE_ADD);
	put_u32(&self->r, MRC_ATTR_IFINDEX, 1);
	put_in6(&self->r, MRC_ATTR_SADDR, "2001:db8::1");
	EXPECT_REFUSED(EINVAL, "mrc: missing plane id");
	EXPECT_EQ(MRC_ATTR_PLANE_ID, self->a.miss_type);

	START(MRC_CMD_PLANE_ADD);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 1);
	put_in6(&self->r, MRC_ATTR_SADDR, "2001:db8::1");
	EXPECT_REFUSED(EINVAL, "mrc: missing device: give an ifindex or an ifname");

	START(MRC_CMD_PLANE_ADD);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 1);
	put_u32(&self->r, MRC_ATTR_IFINDEX, 1);
	EXPECT_REFUSED(EINVAL, "mrc: missing source address");
	EXPECT_EQ(MRC_ATTR_SADDR, self->a.miss_type);

	START(MRC_CMD_ROUTE_ADD);
	put_u8(&self->r, MRC_ATTR_DST_LEN, 16);
	EXPECT_REFUSED(EINVAL, "mrc: missing destination prefix");
	EXPECT_EQ(MRC_ATTR_DST, self->a.miss_type);

	START(MRC_CMD_PROFILE_SET);
	put_u32(&self->r, MRC_ATTR_PROFILE_ID, 0);
	EXPECT_REFUSED(EINVAL, "mrc: nothing to change: give EV or CC parameters");

	START(MRC_CMD_PLANE_SET);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 0);
	EXPECT_REFUSED(EINVAL,
		       "mrc: nothing to change: give admin-up, a device or a source address");
}

TEST_F(nl, unknown_and_foreign_attributes)
{
	int off;

	START(MRC_CMD_PLANE_DEL);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 0);
	off = put_u32(&self->r, MRC_ATTR_MAX + 1, 0);
	EXPECT_REFUSED(EINVAL, "Unknown attribute type");
	EXPECT_EQ(off, self->a.offs);

	/* a real attribute, but not one PLANE_DEL takes */
	START(MRC_CMD_PLANE_DEL);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 0);
	off = put_in6(&self->r, MRC_ATTR_DST, "fc00::");
	EXPECT_REFUSED(EINVAL, "Unsupported attribute");
	EXPECT_EQ(off, self->a.offs);

	/* STATS_GET takes no attribute at all */
	START(MRC_CMD_STATS_GET);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 0);
	EXPECT_REFUSED(EINVAL, "Unknown attribute type");

	/* an unknown command */
	START(MRC_CMD_MAX + 1);
	RUN();
	EXPECT_EQ(EOPNOTSUPP, self->a.error);

	/* a notification command is not a request */
	START(MRC_CMD_PLANE_ADD_NTF);
	RUN();
	EXPECT_EQ(EOPNOTSUPP, self->a.error);
}

TEST_F(nl, reserved_header_bits)
{
	req_init(&self->r, self->fam, MRC_CMD_PLANE_DEL, NLM_F_ACK | NLM_F_REPLACE);
	put_u32(&self->r, MRC_ATTR_PLANE_ID, 0);
	EXPECT_REFUSED(EINVAL, "ambiguous or reserved bits set in nlmsg_flags");

	START(MRC_CMD_STATS_GET);
	((struct genlmsghdr *)NLMSG_DATA(&self->r.nlh))->reserved = 1;
	EXPECT_REFUSED(EINVAL, "genlmsghdr.reserved field is not 0");
}

/* A route of @n srh paths, each with @nsegs SIDs. */
static void route_srh(struct req *r, int fam, const char *dst, int len, int n, int nsegs)
{
	char sid[64];
	int i, k, p, s;

	req_init(r, fam, MRC_CMD_ROUTE_ADD, NLM_F_ACK);
	put_in6(r, MRC_ATTR_DST, dst);
	put_u8(r, MRC_ATTR_DST_LEN, len);
	put_u8(r, MRC_ATTR_ENCAP, MRC_ENCAP_SRH);
	for (i = 0; i < n; i++) {
		p = nest_start(r, MRC_ATTR_PATH);
		put_u32(r, MRC_PATH_ATTR_PLANE, i % (MRC_PLANE_ID_MAX + 1));
		s = nest_start(r, MRC_PATH_ATTR_SEGS);
		for (k = 0; k < nsegs; k++) {
			snprintf(sid, sizeof(sid), "fc00:%x:%x::", i + 1, k + 1);
			put_in6(r, MRC_SEG_ATTR_SID, sid);
		}
		nest_end(r, s);
		nest_end(r, p);
	}
}

TEST_F(nl, segment_lists)
{
	int p, s, off;

	route_srh(&self->r, self->fam, "fc00:b::", 64, 1, MRC_SEGS_MAX + 1);
	EXPECT_REFUSED(EINVAL, "segment list longer than 8 SIDs");

	route_srh(&self->r, self->fam, "fc00:b::", 64, 1, 0);
	EXPECT_REFUSED(EINVAL, "empty segment list");

	route_srh(&self->r, self->fam, "fc00:b::", 64, MRC_ROUTE_PATHS_MAX + 1, 1);
	EXPECT_REFUSED(EINVAL, "too many paths (at most 64 per route)");

	route_srh(&self->r, self->fam, "fc00:b::", 64, 0, 0);
	EXPECT_REFUSED(EINVAL, "mrc: encap srh and usid need at least one path");

	/* a SID of the wrong size inside the nest, after a good one */
	START(MRC_CMD_ROUTE_ADD);
	put_in6(&self->r, MRC_ATTR_DST, "fc00:b::");
	put_u8(&self->r, MRC_ATTR_DST_LEN, 64);
	put_u8(&self->r, MRC_ATTR_ENCAP, MRC_ENCAP_SRH);
	p = nest_start(&self->r, MRC_ATTR_PATH);
	put_u32(&self->r, MRC_PATH_ATTR_PLANE, 0);
	s = nest_start(&self->r, MRC_PATH_ATTR_SEGS);
	put_in6(&self->r, MRC_SEG_ATTR_SID, "fc00:1::");
	off = put_u32(&self->r, MRC_SEG_ATTR_SID, 1);
	nest_end(&self->r, s);
	nest_end(&self->r, p);
	EXPECT_BAD_VALUE("seg sid must be 16 bytes", off, 16, 16);

	/* the largest legal route, dumped back in one piece */
	route_srh(&self->r, self->fam, "fc00:b::", 64, MRC_ROUTE_PATHS_MAX, MRC_SEGS_MAX);
	EXPECT_OK();
	req_init(&self->r, self->fam, MRC_CMD_ROUTE_GET, NLM_F_DUMP);
	RUN();
	EXPECT_EQ(0, self->a.error);
	EXPECT_EQ(1, self->a.nreplies);
}

TEST_F(nl, nested_garbage)
{
	static const char junk[7] = { 1, 2, 3, 4, 5, 6, 7 };
	int p, off;

	/* trailing bytes inside a path nest */
	START(MRC_CMD_ROUTE_ADD);
	put_in6(&self->r, MRC_ATTR_DST, "fc00:b::");
	put_u8(&self->r, MRC_ATTR_DST_LEN, 64);
	p = nest_start(&self->r, MRC_ATTR_PATH);
	put_u32(&self->r, MRC_PATH_ATTR_PLANE, 0);
	memcpy(self->r.buf + self->r.nlh.nlmsg_len, junk, 3);
	self->r.nlh.nlmsg_len += 3;
	nest_end(&self->r, p);
	EXPECT_REFUSED(EINVAL, "bytes leftover after parsing attributes");

	/* unknown attribute type inside a path nest */
	START(MRC_CMD_ROUTE_ADD);
	put_in6(&self->r, MRC_ATTR_DST, "fc00:b::");
	put_u8(&self->r, MRC_ATTR_DST_LEN, 64);
	p = nest_start(&self->r, MRC_ATTR_PATH);
	off = put_u32(&self->r, MRC_PATH_ATTR_MAX + 1, 0);
	nest_end(&self->r, p);
	EXPECT_REFUSED(EINVAL, "Unknown attribute type");
	EXPECT_EQ(off, self->a.offs);

	/* a nest that is pure noise */
	START(MRC_CMD_PROFILE_ADD);
	put_u32(&self->r, MRC_ATTR_PROFILE_ID, 1);
	p = nest_start(&self->r, MRC_ATTR_PROFILE_CC);
	memcpy(self->r.buf + self->r.nlh.nlmsg_len, junk, sizeof(junk));
	self->r.nlh.nlmsg_len += sizeof(junk);
	nest_end(&self->r, p);
	RUN();
	EXPECT_EQ(EINVAL, self->a.error);
	EXPECT_NE(0, self->a.msg[0]);

	/* path without a plane */
	START(MRC_CMD_ROUTE_ADD);
	put_in6(&self->r, MRC_ATTR_DST, "fc00:b::");
	put_u8(&self->r, MRC_ATTR_DST_LEN, 64);
	p = nest_start(&self->r, MRC_ATTR_PATH);
	nest_end(&self->r, p);
	EXPECT_REFUSED(EINVAL, "path without plane id");
	EXPECT_EQ(p, self->a.offs);

	/* encap none with a uSID container */
	START(MRC_CMD_ROUTE_ADD);
	put_in6(&self->r, MRC_ATTR_DST, "fc00:b::");
	put_u8(&self->r, MRC_ATTR_DST_LEN, 64);
	p = nest_start(&self->r, MRC_ATTR_PATH);
	put_u32(&self->r, MRC_PATH_ATTR_PLANE, 0);
	off = put_in6(&self->r, MRC_PATH_ATTR_USID, "fcbb:bbbb:100::");
	nest_end(&self->r, p);
	EXPECT_REFUSED(EINVAL, "encap none takes no segment list or uSID container");
	EXPECT_EQ(off, self->a.offs);
}

TEST_F(nl, route_values)
{
	int off, p;

	START(MRC_CMD_ROUTE_ADD);
	off = put_in6(&self->r, MRC_ATTR_DST, "fc00:b::1");
	put_u8(&self->r, MRC_ATTR_DST_LEN, 64);
	EXPECT_REFUSED(EINVAL, "destination prefix has bits set beyond its length");
	EXPECT_EQ(off, self->a.offs);

	START(MRC_CMD_ROUTE_ADD);
	put_in6(&self->r, MRC_ATTR_DST, "fc00:b::");
	off = put_u8(&self->r, MRC_ATTR_DST_LEN, 129);
	EXPECT_BAD_VALUE("dst-len out of range", off, 0, 128);

	START(MRC_CMD_ROUTE_DEL);
	put_in6(&self->r, MRC_ATTR_DST, "fc00:b::");
	off = put_u8(&self->r, MRC_ATTR_DST_LEN, 255);
	EXPECT_BAD_VALUE("dst-len out of range", off, 0, 128);

	START(MRC_CMD_ROUTE_GET);
	off = put(&self->r, MRC_ATTR_DST, "0123456789abcde", 15);
	EXPECT_BAD_VALUE("dst must be 16 bytes", off, 16, 16);

	START(MRC_CMD_ROUTE_ADD);
	put_in6(&self->r, MRC_ATTR_DST, "fc00:b::");
	put_u8(&self->r, MRC_ATTR_DST_LEN, 64);
	off = put_u8(&self->r, MRC_ATTR_ENCAP, MRC_ENCAP_MAX + 1);
	EXPECT_BAD_VALUE("encap out of range", off, 0, MRC_ENCAP_MAX);

	/* a dump's request attributes are checked too */
	req_init(&self->r, self->fam, MRC_CMD_ROUTE_GET, NLM_F_DUMP);
	put_in6(&self->r, MRC_ATTR_DST, "fc00:b::");
	put_u8(&self->r, MRC_ATTR_DST_LEN, 129);
	RUN();
	EXPECT_EQ(EINVAL, self->a.error);
	EXPECT_STREQ("dst-len out of range", self->a.msg);

	/* the longest prefix and the last encapsulation are fine */
	START(MRC_CMD_ROUTE_ADD);
	put_in6(&self->r, MRC_ATTR_DST, "fc00:b::1");
	put_u8(&self->r, MRC_ATTR_DST_LEN, 128);
	put_u8(&self->r, MRC_ATTR_ENCAP, MRC_ENCAP_MAX);
	p = nest_start(&self->r, MRC_ATTR_PATH);
	put_u32(&self->r, MRC_PATH_ATTR_PLANE, MRC_PLANE_ID_MAX);
	put_in6(&self->r, MRC_PATH_ATTR_USID, "fcbb:bbbb:100::");
	nest_end(&self->r, p);
	EXPECT_OK();
}

TEST_F(nl, path_values)
{
	int p, off;

	/* the first of two paths is bad: every path is checked, not the last */
	START(MRC_CMD_ROUTE_ADD);
	put_in6(&self->r, MRC_ATTR_DST, "fc00:b::");
	put_u8(&self->r, MRC_ATTR_DST_LEN, 64);
	p = nest_start(&self->r, MRC_ATTR_PATH);
	off = put_u32(&self->r, MRC_PATH_ATTR_PLANE, MRC_PLANE_ID_MAX + 1);
	nest_end(&self->r, p);
	p = nest_start(&self->r, MRC_ATTR_PATH);
	put_u32(&self->r, MRC_PATH_ATTR_PLANE, 0);
	nest_end(&self->r, p);
	EXPECT_BAD_VALUE("path plane out of range", off, 0, MRC_PLANE_ID_MAX);

	START(MRC_CMD_ROUTE_ADD);
	put_in6(&self->r, MRC_ATTR_DST, "fc00:b::");
	put_u8(&self->r, MRC_ATTR_DST_LEN, 64);
	put_u8(&self->r, MRC_ATTR_ENCAP, MRC_ENCAP_USID);
	p = nest_start(&self->r, MRC_ATTR_PATH);
	put_u32(&self->r, MRC_PATH_ATTR_PLANE, 0);
	off = put(&self->r, MRC_PATH_ATTR_USID, "fcbbbbbb", 8);
	nest_end(&self->r, p);
	EXPECT_BAD_VALUE("path usid must be 16 bytes", off, 16, 16);
}

TEST_F(nl, route_del_missing)
{
	START(MRC_CMD_ROUTE_DEL);
	put_in6(&self->r, MRC_ATTR_DST, "fc00:b::");
	put_u8(&self->r, MRC_ATTR_DST_LEN, 64);
	EXPECT_REFUSED(ENOENT, "mrc: no route to this prefix");
}

/* ev-probe: the peer and every value checked before anything is sent. */
TEST_F(nl, ev_probe_values)
{
	static const char * const not_unicast[] = { "ff02::1", "::" };
	int off;
	size_t i;

	START(MRC_CMD_EV_PROBE);
	put_u32(&self->r, MRC_ATTR_PROBE_EVS, 1);
	EXPECT_REFUSED(EINVAL, "mrc: missing probe peer");
	EXPECT_EQ(MRC_ATTR_PROBE_PEER, self->a.miss_type);

	START(MRC_CMD_EV_PROBE);
	off = put(&self->r, MRC_ATTR_PROBE_PEER, "fc00:b::", 8);
	EXPECT_BAD_VALUE("probe-peer must be 16 bytes", off, 16, 16);

	START(MRC_CMD_EV_PROBE);
	put_in6(&self->r, MRC_ATTR_PROBE_PEER, "fc00:b::2");
	off = put_u32(&self->r, MRC_ATTR_PROBE_EVS, 0);
	EXPECT_BAD_VALUE("probe-evs out of range", off, 1, MRC_PROBE_EVS_MAX);
	START(MRC_CMD_EV_PROBE);
	put_in6(&self->r, MRC_ATTR_PROBE_PEER, "fc00:b::2");
	off = put_u32(&self->r, MRC_ATTR_PROBE_EVS, MRC_PROBE_EVS_MAX + 1);
	EXPECT_BAD_VALUE("probe-evs out of range", off, 1, MRC_PROBE_EVS_MAX);

	START(MRC_CMD_EV_PROBE);
	put_in6(&self->r, MRC_ATTR_PROBE_PEER, "fc00:b::2");
	off = put_u32(&self->r, MRC_ATTR_PROBE_TIMEOUT_MS, 0);
	EXPECT_BAD_VALUE("probe-timeout-ms out of range", off, 1,
			 MRC_PROBE_TIMEOUT_MS_MAX);
	START(MRC_CMD_EV_PROBE);
	put_in6(&self->r, MRC_ATTR_PROBE_PEER, "fc00:b::2");
	off = put_u32(&self->r, MRC_ATTR_PROBE_TIMEOUT_MS,
		      MRC_PROBE_TIMEOUT_MS_MAX + 1);
	EXPECT_BAD_VALUE("probe-timeout-ms out of range", off, 1,
			 MRC_PROBE_TIMEOUT_MS_MAX);

	for (i = 0; i < sizeof(not_unicast) / sizeof(not_unicast[0]); i++) {
		START(MRC_CMD_EV_PROBE);
		put_in6(&self->r, MRC_ATTR_PROBE_PEER, not_unicast[i]);
		/* Pointing at the attribute, as a value check's refusal. */
		EXPECT_REFUSED(EINVAL, "probe-peer must be a unicast address");
		EXPECT_LT(0, self->a.offs);
	}

	/* a real attribute, but not one EV_PROBE takes */
	START(MRC_CMD_EV_PROBE);
	put_in6(&self->r, MRC_ATTR_PROBE_PEER, "fc00:b::2");
	off = put_u32(&self->r, MRC_ATTR_PLANE_ID, 0);
	EXPECT_REFUSED(EINVAL, "Unsupported attribute");
	EXPECT_EQ(off, self->a.offs);

	/* No route to the peer: answered, each probe reported unsent. */
	START(MRC_CMD_EV_PROBE);
	put_in6(&self->r, MRC_ATTR_PROBE_PEER, "fc00:dead::1");
	put_u32(&self->r, MRC_ATTR_PROBE_EVS, 2);
	put_u32(&self->r, MRC_ATTR_PROBE_TIMEOUT_MS, 1);
	EXPECT_OK();
	EXPECT_EQ(1, self->a.nreplies);
}

TEST_F(nl, profiles)
{
	int e, off;

	START(MRC_CMD_PROFILE_ADD);
	put_u32(&self->r, MRC_ATTR_PROFILE_ID, 1);
	e = nest_start(&self->r, MRC_ATTR_PROFILE_EV);
	off = put_u32(&self->r, MRC_EV_ATTR_COUNT, MRC_EV_COUNT_MIN - 1);
	nest_end(&self->r, e);
	EXPECT_BAD_VALUE("ev count out of range", off, MRC_EV_COUNT_MIN, MRC_EV_COUNT_MAX);

	START(MRC_CMD_PROFILE_ADD);
	off = put_u32(&self->r, MRC_ATTR_PROFILE_ID, MRC_PROFILE_ID_MAX + 1);
	EXPECT_BAD_VALUE("profile-id out of range", off, 0, MRC_PROFILE_ID_MAX);
	START(MRC_CMD_PROFILE_DEL);
	off = put_u32(&self->r, MRC_ATTR_PROFILE_ID, MRC_PROFILE_ID_MAX + 1);
	EXPECT_BAD_VALUE("profile-id out of range", off, 0, MRC_PROFILE_ID_MAX);
	START(MRC_CMD_PROFILE_GET);
	off = put_u32(&self->r, MRC_ATTR_PROFILE_ID, 0xffffffff);
	EXPECT_BAD_VALUE("profile-id out of range", off, 0, MRC_PROFILE_ID_MAX);
	req_init(&self->r, self->fam, MRC_CMD_PROFILE_GET, NLM_F_DUMP);
	put_u32(&self->r, MRC_ATTR_PROFILE_ID, MRC_PROFILE_ID_MAX + 1);
	RUN();
	EXPECT_EQ(EINVAL, self->a.error);
	EXPECT_STREQ("profile-id out of range", self->a.msg);

	START(MRC_CMD_PROFILE_ADD);
	put_u32(&self->r, MRC_ATTR_PROFILE_ID, 1);
	e = nest_start(&self->r, MRC_ATTR_PROFILE_EV);
	put_u32(&self->r, MRC_EV_ATTR_MIN_ACTIVE, MRC_EV_COUNT_MAX);
	nest_end(&self->r, e);
	EXPECT_REFUSED(EINVAL, "mrc: minimum active EVs exceed the EV count");

	START(MRC_CMD_PROFILE_ADD);
	put_u32(&self->r, MRC_ATTR_PROFILE_ID, 0);
	EXPECT_REFUSED(EEXIST, "mrc: profile id already exists");

	START(MRC_CMD_PROFILE_DEL);
	put_u32(&self->r, MRC_ATTR_PROFILE_ID, 0);
	EXPECT_REFUSED(EINVAL, "mrc: profile 0 is the default and cannot be deleted");

	START(MRC_CMD_PROFILE_ADD);
	put_u32(&self->r, MRC_ATTR_PROFILE_ID, 1);
	EXPECT_OK();
	req_init(&self->r, self->fam, MRC_CMD_PROFILE_GET, NLM_F_DUMP);
	RUN();
	EXPECT_EQ(2, self->a.nreplies);
}

/* Every EV and CC value of a profile, one past each bound, then at it. */
static const struct {
	int nest;		/* MRC_ATTR_PROFILE_EV or _CC */
	int type;
	int u8;			/* sent as u8, else u32 */
	uint32_t lo, hi;
	const char *msg;
} profile_values[] = {
	{ MRC_ATTR_PROFILE_EV, MRC_EV_ATTR_COUNT, 0, MRC_EV_COUNT_MIN, MRC_EV_COUNT_MAX,
	  "ev count out of range" },
	{ MRC_ATTR_PROFILE_EV, MRC_EV_ATTR_ACTIVE_PER_PLANE, 0, 0, MRC_EV_COUNT_MAX,
	  "ev active-per-plane out of range" },
	{ MRC_ATTR_PROFILE_EV, MRC_EV_ATTR_MIN_ACTIVE, 0, 0, MRC_EV_COUNT_MAX,
	  "ev min-active out of range" },
	{ MRC_ATTR_PROFILE_EV, MRC_EV_ATTR_BURST, 0, 1, MRC_EV_BURST_MAX,
	  "ev burst out of range" },
	{ MRC_ATTR_PROFILE_CC, MRC_CC_ATTR_ALGO, 1, 0, MRC_CC_ALGO_MAX,
	  "cc algo out of range" },
	{ MRC_ATTR_PROFILE_CC, MRC_CC_ATTR_TARGET_DELAY_PM, 0, 1, 10000,
	  "cc target-delay-pm out of range" },
	{ MRC_ATTR_PROFILE_CC, MRC_CC_ATTR_GAMMA_PM, 0, 1, 1000,
	  "cc gamma-pm out of range" },
	{ MRC_ATTR_PROFILE_CC, MRC_CC_ATTR_MAX_MD_PM, 0, 1, 1000,
	  "cc max-md-pm out of range" },
	{ MRC_ATTR_PROFILE_CC, MRC_CC_ATTR_MAX_WND_PM, 0, 100, 10000,
	  "cc max-wnd-pm out of range" },
	{ MRC_ATTR_PROFILE_CC, MRC_CC_ATTR_INIT_WND_PM, 0, 100, 10000,
	  "cc init-wnd-pm out of range" },
	{ MRC_ATTR_PROFILE_CC, MRC_CC_ATTR_LINK_MBPS, 0, MRC_CC_LINK_MBPS_MIN,
	  MRC_CC_LINK_MBPS_MAX, "cc link-mbps out of range" },
	{ MRC_ATTR_PROFILE_CC, MRC_CC_ATTR_INIT_WND_SHARED, 1, 0, 1,
	  "cc init-wnd-shared out of range" },
};

/*
 * PROFILE_SET of profile 0 with value @v of profile_values[@i]; returns the
 * value's offset. At a bound it must pass the value check; with the EV
 * count at its maximum and the windows equal, no consistency check of the
 * profile refuses a bound either.
 */
static int profile_value(struct req *r, int fam, int i, uint32_t v)
{
	uint32_t lo = profile_values[i].lo, hi = profile_values[i].hi;
	uint32_t other = v < lo ? lo : v > hi ? hi : v;
	int n, off;

	req_init(r, fam, MRC_CMD_PROFILE_SET, NLM_F_ACK);
	put_u32(r, MRC_ATTR_PROFILE_ID, 0);
	n = nest_start(r, MRC_ATTR_PROFILE_EV);
	if (profile_values[i].type != MRC_EV_ATTR_COUNT ||
	    profile_values[i].nest != MRC_ATTR_PROFILE_EV)
		put_u32(r, MRC_EV_ATTR_COUNT, MRC_EV_COUNT_MAX);
	if (profile_values[i].nest == MRC_ATTR_PROFILE_CC) {
		nest_end(r, n);
		n = nest_start(r, MRC_ATTR_PROFILE_CC);
	}
	if (profile_values[i].u8)
		off = put_u8(r, profile_values[i].type, v);
	else
		off = put_u32(r, profile_values[i].type, v);
	/* the other window: equal, or in range when @v is not */
	if (profile_values[i].type == MRC_CC_ATTR_MAX_WND_PM)
		put_u32(r, MRC_CC_ATTR_INIT_WND_PM, other);
	if (profile_values[i].type == MRC_CC_ATTR_INIT_WND_PM)
		put_u32(r, MRC_CC_ATTR_MAX_WND_PM, other);
	nest_end(r, n);
	return off;
}

TEST_F(nl, profile_values)
{
	unsigned int i;
	uint32_t lo, hi, top;
	int off;

	for (i = 0; i < sizeof(profile_values) / sizeof(profile_values[0]); i++) {
		lo = profile_values[i].lo;
		hi = profile_values[i].hi;
		top = profile_values[i].u8 ? 0xff : 0xffffffff;
		if (lo) {
			off = profile_value(&self->r, self->fam, i, lo - 1);
			EXPECT_BAD_VALUE(profile_values[i].msg, off, lo, hi);
		}
		off = profile_value(&self->r, self->fam, i, hi + 1);
		EXPECT_BAD_VALUE(profile_values[i].msg, off, lo, hi);
		off = profile_value(&self->r, self->fam, i, top);
		EXPECT_BAD_VALUE(profile_values[i].msg, off, lo, hi);
		profile_value(&self->r, self->fam, i, lo);
		EXPECT_OK();
		profile_value(&self->r, self->fam, i, hi);
		EXPECT_OK();
	}
}

TEST_F(nl, event_on_plane_add)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 5 };
	char buf[4096];
	struct nlmsghdr *nlh;
	int mon;
	ssize_t n;

	ASSERT_LE(0, self->grp);
	mon = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	ASSERT_LE(0, mon);
	ASSERT_EQ(0, bind(mon, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_EQ(0, setsockopt(mon, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &self->grp,
				sizeof(self->grp)));
	setsockopt(mon, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	plane_add(&self->r, self->fam, 5);
	EXPECT_OK();
	n = recv(mon, buf, sizeof(buf), 0);
	ASSERT_LT(0, n) TH_LOG("no event: %s", strerror(errno));
	nlh = (struct nlmsghdr *)buf;
	EXPECT_EQ(self->fam, nlh->nlmsg_type);
	EXPECT_EQ(MRC_CMD_PLANE_ADD_NTF, ((struct genlmsghdr *)NLMSG_DATA(nlh))->cmd);
	close(mon);
}

TEST_HARNESS_MAIN
