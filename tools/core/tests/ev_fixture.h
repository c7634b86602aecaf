// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// ev_fixture.h - an EV manager (kmod/core/mrc_ev.c) on its own, with its
// event queue, for ev_test.cc and ev_path_test.cc: the test fills cfg_
// (mrc_conn_cfg_init() and its overrides), then start() builds it.
#ifndef MRC_TESTS_EV_FIXTURE_H
#define MRC_TESTS_EV_FIXTURE_H

#include <gtest/gtest.h>

#include <vector>

extern "C" {
#include "mrc_ev.h"
}

class EvFixture : public ::testing::Test {
  protected:
    // Validate cfg_ and build the manager, its PRNG seeded with @seed.
    void start(u64 seed, size_t events = 1024) {
        ASSERT_EQ(mrc_conn_cfg_check(&cfg_), MRC_OK);
        mrc_rng_seed(&rng_, seed);
        ring_.assign(events, mrc_event{});
        evq_ = mrc_evq{};
        evq_.ring = ring_.data();
        evq_.cap = static_cast<u32>(ring_.size());
        evq_.mask = MRC_EVT_MASK_ALL;
        m_ = mrc_ev_mgr{};
        ASSERT_EQ(mrc_ev_init(&m_, &cfg_, &rng_, &evq_), MRC_OK);
        made_ = true;
    }
    void destroy() {
        if (made_) mrc_ev_destroy(&m_);
        made_ = false;
    }
    void TearDown() override { destroy(); }
    // The events queued since the last drain.
    std::vector<mrc_event> drain() {
        std::vector<mrc_event> v;
        mrc_event e;

        while (mrc_evq_pop(&evq_, &e)) v.push_back(e);
        return v;
    }

    mrc_conn_cfg cfg_{};
    mrc_rng rng_{};
    std::vector<mrc_event> ring_;
    mrc_evq evq_{};
    mrc_ev_mgr m_{};
    bool made_ = false;
};

#endif
