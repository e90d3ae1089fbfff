#pragma once
// ValueOrCo<T>: what a kernel path returns when its common case finishes at once with a value and only sometimes
// needs a coroutine (alloc_page() from a non-empty per-CPU list, a buffered read of a cached page). The caller
// writes `T v = co_await f(...)` as for a Co<T>; the fast path pays no coroutine frame (allocation, resume, destroy),
// the slow path is the coroutine itself, awaited exactly as `co_await c` would. MaybeCo (sim/co.h) is the same idea
// without a value.
//
// A fast path must be a plain prefix of what the coroutine would have done without suspending: same costs burned,
// same state changed, no event. It decides before changing anything, so that handing over to the coroutine starts
// from the same state the coroutine alone would have seen.

#include "sim/co.h"

#include <coroutine>
#include <utility>

namespace mms {

template <typename T>
class [[nodiscard]] ValueOrCo {
public:
    ValueOrCo(T v) // NOLINT(google-explicit-constructor): `return p;` on the fast path
        : m_value(std::move(v))
    {
    }
    ValueOrCo(Co<T> c) // NOLINT(google-explicit-constructor): `return slow_path(...);`
        : m_co(std::move(c))
        , m_has(true)
    {
    }
    bool await_ready() const noexcept { return !m_has; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) noexcept { return m_co.await_suspend(caller); }
    T await_resume()
    {
        if (m_has)
            return m_co.await_resume();
        return std::move(m_value);
    }

private:
    T m_value {};
    Co<T> m_co;
    bool m_has = false;
};

} // namespace mms
