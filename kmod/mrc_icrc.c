// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_icrc.c - the RoCEv2 ICRC of an MRC packet in an skb, linear or not:
 * the codec's pseudo-header and BTH rules (kmod/core/mrc_wire.c) and a
 * CRC-32 over the payload frags. Transmit (mrc_output.c) and receive
 * (mrc_input.c) alike.
 *
 * Which CRC-32 computes the payload's part is chosen by measurement, as
 * the kernel picks its RAID-6 and XOR routines: at load, the library's
 * crc32_le() (slice-by-8 tables in 6.1 and 6.12) and the crypto API's
 * "crc32" shash (the highest-priority driver the CPU has: crc32-pclmul,
 * 16 bytes per carry-less multiply, what rdma_rxe's ICRC uses) each CRC the
 * same 1 KiB chunks, and the faster serves: on a CPU that runs PCLMULQDQ
 * natively, the crypto driver is expected to; under QEMU TCG (the
 * project's VM rig) the emulated multiplies and FPU sections lose to the
 * tables (Documentation/networking/mrc-datapath.rst, "ICRC"). Parameter ``icrc``
 * overrides it: auto (measure again), crypto, lib. Both compute the same
 * function, so a switch is safe with packets in flight: any chunk may use
 * either. The header parts (a few dozen bytes, below what the accelerated
 * drivers take) always use crc32_le().
 *
 * Locking: mrc_icrc_lock serialises the writers of the choice (module load,
 * parameter writes, unload); the datapath reads mrc_icrc_use_crypto with
 * READ_ONCE() and needs no lock, since the transform lives from load to
 * unload.
 */
#define pr_fmt(fmt) "mrc: " fmt

#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/ipv6.h>

#include "mrc_icrc.h"

/* Choices of parameter icrc. */
enum mrc_icrc_policy {
	MRC_ICRC_AUTO,
	MRC_ICRC_CRYPTO,
	MRC_ICRC_LIB,
};

static const char *const mrc_icrc_policy_names[] = {
	[MRC_ICRC_AUTO] = "auto",
	[MRC_ICRC_CRYPTO] = "crypto",
	[MRC_ICRC_LIB] = "lib",
};

static DEFINE_MUTEX(mrc_icrc_lock);
/* mrc_icrc_lock: the "crc32" transform; NULL before load, or without one. */
static struct crypto_shash *mrc_crc32_tfm;
/* mrc_icrc_lock for writers; read locklessly by the datapath. */
static bool mrc_icrc_use_crypto;
/* mrc_icrc_lock: what parameter icrc asked for. */
static enum mrc_icrc_policy mrc_icrc_policy;
/* mrc_icrc_lock: mrc_icrc_init_module() ran and the exit has not. */
static bool mrc_icrc_ready;

/*
 * CRC-32 of @len bytes at @p continued from @crc through the transform.
 * Not inlined: its descriptor takes a few hundred bytes of stack, deep in
 * the forwarding path, which the library's CRC should not pay for.
 */
static noinline u32 mrc_crc32_crypto(u32 crc, const u8 *p, u32 len)
{
	SHASH_DESC_ON_STACK(desc, mrc_crc32_tfm);

	/*
	 * Every "crc32" driver keeps its running value as a u32 in the
	 * descriptor's context and updates it as crc32_le() does; rdma_rxe
	 * seeds and reads it the same way. update() cannot fail for a CRC.
	 */
	desc->tfm = mrc_crc32_tfm;
	*(u32 *)shash_desc_ctx(desc) = crc;
	crypto_shash_update(desc, p, len);
	return *(u32 *)shash_desc_ctx(desc);
}

/* CRC-32 of @len bytes at @p continued from @crc, no pre- or post-inversion. */
static u32 mrc_crc32(u32 crc, const u8 *p, u32 len)
{
	if (READ_ONCE(mrc_icrc_use_crypto))
		return mrc_crc32_crypto(crc, p, len);
	return crc32_le(crc, p, len);
}

/*
 * CRC-32 of bytes [@from, @from + @len) of @skb, linear or not, continued
 * from @crc. A CRC streams: each chunk continues the running value, so the
 * frags are read in order with skb_seq_read() and no chunk's CRC is ever
 * combined (__skb_checksum() computes each frag's from zero and combines,
 * crc32_le_combine() a shift per frag: a third of the ICRC's cycles in a
 * guest profile, Documentation/networking/mrc-bench.rst).
 */
static u32 mrc_skb_crc32(const struct sk_buff *skb, u32 from, u32 len, u32 crc)
{
	struct skb_seq_state st;
	const u8 *data;
	u32 done = 0, n;

	if (!len)
		return crc;
	/* skb_seq_read() only reads the skb: its prototype is not const. */
	skb_prepare_seq_read((struct sk_buff *)skb, from, from + len, &st);
	while ((n = skb_seq_read(done, &data, &st)) != 0) {
		n = min(n, len - done);
		crc = mrc_crc32(crc, data, n);
		done += n;
		if (done == len) {
			skb_abort_seq_read(&st);
			break;
		}
	}
	return crc;
}

/**
 * mrc_icrc_hdrs_set() - the IPv6/UDP fields an ICRC covers
 * @h: filled; no pseudo-header CRC yet, no extension header
 * @saddr: source address of the IPv6 header in front of UDP (under SRv6,
 *	the inner one)
 * @daddr: its destination address
 * @sport: UDP source port
 * @dport: UDP destination port
 */
void mrc_icrc_hdrs_set(struct mrc_icrc_hdrs *h, const struct in6_addr *saddr,
		       const struct in6_addr *daddr, u16 sport, u16 dport)
{
	memcpy(h->ip.saddr, saddr, sizeof(h->ip.saddr));
	memcpy(h->ip.daddr, daddr, sizeof(h->ip.daddr));
	h->ip.sport = sport;
	h->ip.dport = dport;
	h->seed_len = 0;
	h->ext_len = 0;
	h->nexthdr = IPPROTO_UDP;
}

/**
 * mrc_icrc_hdrs_set_ext() - the extension headers a packet arrived with
 * @h: set by mrc_icrc_hdrs_set()
 * @nexthdr: next header of the IPv6 header in front of UDP
 * @ext_len: bytes of extension headers between it and UDP
 *
 * RoCEv2 covers that IPv6 header as it is, payload length and next header
 * included: a sender that put an extension header in front of UDP covered
 * them so. mrc_skb_icrc_ok() then accepts that ICRC too.
 */
void mrc_icrc_hdrs_set_ext(struct mrc_icrc_hdrs *h, u8 nexthdr, u16 ext_len)
{
	h->nexthdr = nexthdr;
	h->ext_len = ext_len;
}

/*
 * CRC state after the masked LRH, the IPv6 header as it arrived (payload
 * length and next header with the extension headers of @h) and the UDP
 * header of a packet of @len bytes (BTH to ICRC).
 */
static u32 mrc_icrc_seed_ext(const struct mrc_icrc_hdrs *h, u32 len)
{
	u32 ulen = len + sizeof(struct udphdr);
	u8 b[sizeof(struct ipv6hdr) + sizeof(struct udphdr)];
	__be16 v;

	/* Version 6, traffic class and flow label masked (all ones). */
	b[0] = 0x6f;
	b[1] = 0xff;
	b[2] = 0xff;
	b[3] = 0xff;
	v = htons(h->ext_len + ulen);
	memcpy(b + 4, &v, 2);
	b[6] = h->nexthdr;
	b[7] = 0xff;	/* hop limit, masked */
	memcpy(b + 8, h->ip.saddr, 16);
	memcpy(b + 24, h->ip.daddr, 16);
	v = htons(h->ip.sport);
	memcpy(b + 40, &v, 2);
	v = htons(h->ip.dport);
	memcpy(b + 42, &v, 2);
	v = htons(ulen);
	memcpy(b + 44, &v, 2);
	b[46] = 0xff;	/* UDP checksum, masked */
	b[47] = 0xff;
	return mrc_icrc_update(MRC_ICRC_LRH_STATE, b, sizeof(b));
}

/*
 * The ICRC of the MRC packet of @len bytes (ICRC included) at offset @off
 * of @skb, linear or not; @bth is a copy of its BTH. Transmit and receive
 * alike: the pseudo-header has this packet's own UDP length, also for a
 * segment of a flowcell (@h keeps the last length's).
 */
u32 mrc_skb_icrc(const struct sk_buff *skb, int off, u32 len,
		 struct mrc_icrc_hdrs *h, const u8 *bth)
{
	u32 state;

	if (h->seed_len != len) {
		h->seed = mrc_icrc_seed(&h->ip, len);
		h->seed_len = len;
	}
	state = mrc_icrc_bth(h->seed, bth);

	state = mrc_skb_crc32(skb, off + MRC_BTH_LEN,
			      len - MRC_BTH_LEN - MRC_ICRC_LEN, state);
	return ~state;
}

/**
 * mrc_skb_icrc_ok() - does a received MRC packet carry a right ICRC?
 * @skb: the datagram
 * @off: offset of the packet's BTH in @skb
 * @len: bytes of the packet, BTH to the end of the ICRC
 * @h: its IPv6/UDP fields (mrc_icrc_hdrs_set(), mrc_icrc_hdrs_set_ext())
 * @bth: a copy of its BTH
 * @icrc: the ICRC it carries (read least significant byte first)
 *
 * Right is the RoCEv2 rule over the IPv6 header in front of UDP as it
 * arrived. Without extension headers that header's payload length is the
 * UDP length and its next header UDP, what mrc.ko's senders cover; with
 * them, the ICRC over that header as it came is accepted, and so is the one
 * over the header without them (mrc_icrc_seed(): what mrc.ko sends, should
 * a path have added one). The second CRC is only computed for a packet
 * with extension headers whose first did not match.
 *
 * Return: true if the ICRC matches.
 */
bool mrc_skb_icrc_ok(const struct sk_buff *skb, int off, u32 len,
		     struct mrc_icrc_hdrs *h, const u8 *bth, u32 icrc)
{
	u32 state;

	if (mrc_skb_icrc(skb, off, len, h, bth) == icrc)
		return true;
	if (!h->ext_len && h->nexthdr == IPPROTO_UDP)
		return false;
	state = mrc_icrc_bth(mrc_icrc_seed_ext(h, len), bth);
	state = mrc_skb_crc32(skb, off + MRC_BTH_LEN,
			      len - MRC_BTH_LEN - MRC_ICRC_LEN, state);
	return ~state == icrc;
}

/* Bytes per call and calls per trial of the load-time measurement. */
#define MRC_ICRC_CAL_CHUNK	1024
#define MRC_ICRC_CAL_CALLS	32
#define MRC_ICRC_CAL_TRIALS	5

/*
 * MB/s of one implementation over MRC_ICRC_CAL_CALLS chunks of @buf, the
 * best of MRC_ICRC_CAL_TRIALS trials (an interrupt only slows a trial).
 */
static u64 mrc_icrc_rate(bool crypto, const u8 *buf)
{
	u64 best = U64_MAX, t;
	u32 crc = 0;
	int trial, i;

	for (trial = 0; trial < MRC_ICRC_CAL_TRIALS; trial++) {
		t = ktime_get_ns();
		for (i = 0; i < MRC_ICRC_CAL_CALLS; i++)
			crc = crypto ? mrc_crc32_crypto(crc, buf, MRC_ICRC_CAL_CHUNK) :
				       crc32_le(crc, buf, MRC_ICRC_CAL_CHUNK);
		t = ktime_get_ns() - t;
		best = min(best, t);
	}
	/* Keep the result live; the value itself is of no interest. */
	OPTIMIZER_HIDE_VAR(crc);
	return div64_u64((u64)MRC_ICRC_CAL_CHUNK * MRC_ICRC_CAL_CALLS * 1000,
			 max_t(u64, best, 1));
}

/* Set mrc_icrc_use_crypto from the policy, measuring for auto. */
static void mrc_icrc_apply(void)
{
	u64 lib_mbs, crypto_mbs;
	bool crypto;
	u8 *buf;

	lockdep_assert_held(&mrc_icrc_lock);
	if (!mrc_crc32_tfm || mrc_icrc_policy == MRC_ICRC_LIB) {
		crypto = false;
	} else if (mrc_icrc_policy == MRC_ICRC_CRYPTO) {
		crypto = true;
	} else {
		buf = kmalloc(MRC_ICRC_CAL_CHUNK, GFP_KERNEL);
		if (!buf) {
			/* Unmeasured: the CPU's best driver, the kernel's pick. */
			crypto = true;
		} else {
			memset(buf, 0x5a, MRC_ICRC_CAL_CHUNK);
			lib_mbs = mrc_icrc_rate(false, buf);
			crypto_mbs = mrc_icrc_rate(true, buf);
			kfree(buf);
			crypto = crypto_mbs > lib_mbs;
			pr_info("ICRC: %s %llu MB/s, crc32_le %llu MB/s\n",
				crypto_shash_driver_name(mrc_crc32_tfm),
				crypto_mbs, lib_mbs);
		}
	}
	WRITE_ONCE(mrc_icrc_use_crypto, crypto);
	pr_info("ICRC: %s (icrc=%s)\n", mrc_icrc_driver(),
		mrc_icrc_policy_names[mrc_icrc_policy]);
}

static int mrc_icrc_param_set(const char *val, const struct kernel_param *kp)
{
	int policy = sysfs_match_string(mrc_icrc_policy_names, val);
	int err = 0;

	if (policy < 0)
		return -EINVAL;
	mutex_lock(&mrc_icrc_lock);
	if (policy == MRC_ICRC_CRYPTO && mrc_icrc_ready && !mrc_crc32_tfm) {
		err = -ENODEV;
	} else {
		mrc_icrc_policy = policy;
		/* At load the parameter precedes init, which applies it. */
		if (mrc_icrc_ready)
			mrc_icrc_apply();
	}
	mutex_unlock(&mrc_icrc_lock);
	return err;
}

static int mrc_icrc_param_get(char *buf, const struct kernel_param *kp)
{
	int n;

	mutex_lock(&mrc_icrc_lock);
	n = sysfs_emit(buf, "%s\n", mrc_icrc_policy_names[mrc_icrc_policy]);
	mutex_unlock(&mrc_icrc_lock);
	return n;
}

static const struct kernel_param_ops mrc_icrc_param_ops = {
	.set = mrc_icrc_param_set,
	.get = mrc_icrc_param_get,
};
module_param_cb(icrc, &mrc_icrc_param_ops, NULL, 0644);
MODULE_PARM_DESC(icrc, "payload CRC of the ICRC: auto (the faster, measured at load; default), crypto (the crypto API's crc32 driver), lib (crc32_le)");

static int mrc_icrc_impl_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", mrc_icrc_driver());
}

/* Only read: a value given at load would otherwise reach a NULL set(). */
static int mrc_icrc_impl_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

/* What icrc chose, for users and tests. */
static const struct kernel_param_ops mrc_icrc_impl_ops = {
	.set = mrc_icrc_impl_set,
	.get = mrc_icrc_impl_get,
};
module_param_cb(icrc_impl, &mrc_icrc_impl_ops, NULL, 0444);
MODULE_PARM_DESC(icrc_impl, "the payload CRC in use (read-only): crc32_le or the crypto driver's name");

/**
 * mrc_icrc_init_module() - pick the payload CRC's implementation
 *
 * Loads the crypto API's best "crc32" (its module is autoloaded) and applies
 * parameter icrc. Never fails the module's load: without a transform,
 * crc32_le() computes the same CRC (and icrc=crypto is refused from then on).
 */
void mrc_icrc_init_module(void)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32", 0, 0);

	mutex_lock(&mrc_icrc_lock);
	if (IS_ERR(tfm))
		pr_info("ICRC: no crypto \"crc32\" (%ld), crc32_le only\n",
			PTR_ERR(tfm));
	else
		mrc_crc32_tfm = tfm;
	mrc_icrc_ready = true;
	mrc_icrc_apply();
	mutex_unlock(&mrc_icrc_lock);
}

/**
 * mrc_icrc_exit_module() - free the CRC transform, after every socket is gone
 */
void mrc_icrc_exit_module(void)
{
	mutex_lock(&mrc_icrc_lock);
	mrc_icrc_ready = false;
	WRITE_ONCE(mrc_icrc_use_crypto, false);
	if (mrc_crc32_tfm)
		crypto_free_shash(mrc_crc32_tfm);
	mrc_crc32_tfm = NULL;
	mutex_unlock(&mrc_icrc_lock);
}

/**
 * mrc_icrc_driver() - name of the payload CRC's implementation in use
 *
 * Return: the crypto driver's name ("crc32-pclmul", "crc32-generic", ...),
 * or "crc32_le" for the library.
 */
const char *mrc_icrc_driver(void)
{
	if (!READ_ONCE(mrc_icrc_use_crypto))
		return "crc32_le";
	return crypto_shash_driver_name(mrc_crc32_tfm);
}
