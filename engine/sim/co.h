#pragma once
// Co<T>: the coroutine type every simulated kernel path is written in.
//
// A kernel function such as zap_pte_range() is a coroutine so that it reads like the kernel source while the
// simulator suspends it wherever simulated time must pass (a lock wait, an I/O, a cost that other CPUs must see).
// Co is lazily started and awaitable: `co_await zap_pte_range(t, ...)` runs the callee and resumes the caller when it
// returns (symmetric transfer, so deep call chains do not grow the host stack).
//
// Frames come from a per-thread pool (FramePool) so that the hot paths do not call the heap per call; one run is
// always executed on one host thread, so frames never cross threads.

#include <coroutine>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <new>
#include <utility>

namespace mms {

// Size-class free lists for coroutine frames. Not thread-safe by design: thread_local.
class FramePool {
public:
    static void* allocate(std::size_t n)
    {
        std::size_t cls = sizeClass(n);
        if (cls < kClasses) {
            auto& head = heads()[cls];
            if (head) {
                Node* node = head;
                head = node->next;
                return node;
            }
            return ::operator new((cls + 1) * kGranule);
        }
        return ::operator new(n);
    }
    static void release(void* p, std::size_t n) noexcept
    {
        std::size_t cls = sizeClass(n);
        if (cls < kClasses) {
            auto* node = static_cast<Node*>(p);
            node->next = heads()[cls];
            heads()[cls] = node;
            return;
        }
        ::operator delete(p);
    }

private:
    struct Node {
        Node* next;
    };
    static constexpr std::size_t kGranule = 64;
    static constexpr std::size_t kClasses = 32; // frames up to 2 KiB are pooled
    static std::size_t sizeClass(std::size_t n) { return (n + kGranule - 1) / kGranule - 1; }
    struct Heads {
        Node* h[kClasses] = {};
        ~Heads()
        {
            for (auto* head : h)
                while (head) {
                    Node* next = head->next;
                    ::operator delete(head);
                    head = next;
                }
        }
        Node*& operator[](std::size_t i) { return h[i]; }
    };
    static Heads& heads()
    {
        thread_local Heads h;
        return h;
    }
};

template <typename T = void>
class Co;

namespace detail {
    struct PromiseBase {
        std::coroutine_handle<> continuation = std::noop_coroutine();
        std::exception_ptr error;

        static void* operator new(std::size_t n) { return FramePool::allocate(n); }
        static void operator delete(void* p, std::size_t n) noexcept { FramePool::release(p, n); }

        std::suspend_always initial_suspend() noexcept { return {}; }
        struct FinalAwaiter {
            bool await_ready() noexcept { return false; }
            template <typename P>
            std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept
            {
                return h.promise().continuation;
            }
            void await_resume() noexcept { }
        };
        FinalAwaiter final_suspend() noexcept { return {}; }
        void unhandled_exception() { error = std::current_exception(); }
    };

    template <typename T>
    struct Promise : PromiseBase {
        T value {};
        Co<T> get_return_object();
        void return_value(T v) { value = std::move(v); }
    };
    template <>
    struct Promise<void> : PromiseBase {
        Co<void> get_return_object();
        void return_void() { }
    };
} // namespace detail

template <typename T>
class [[nodiscard]] Co {
public:
    using promise_type = detail::Promise<T>;
    using Handle = std::coroutine_handle<promise_type>;

    Co() = default;
    explicit Co(Handle h)
        : m_h(h)
    {
    }
    Co(Co&& o) noexcept
        : m_h(std::exchange(o.m_h, {}))
    {
    }
    Co& operator=(Co&& o) noexcept
    {
        if (this != &o) {
            destroy();
            m_h = std::exchange(o.m_h, {});
        }
        return *this;
    }
    Co(const Co&) = delete;
    Co& operator=(const Co&) = delete;
    ~Co() { destroy(); }

    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) noexcept
    {
        m_h.promise().continuation = caller;
        return m_h;
    }
    T await_resume()
    {
        if (m_h.promise().error)
            std::rethrow_exception(m_h.promise().error);
        if constexpr (!std::is_void_v<T>)
            return std::move(m_h.promise().value);
    }

    // For the simulator: a top-level coroutine (a task's body) is started and owned by the simulator.
    Handle release() { return std::exchange(m_h, {}); }
    bool done() const { return !m_h || m_h.done(); }

private:
    void destroy()
    {
        if (m_h)
            m_h.destroy();
    }
    Handle m_h {};
};

// MaybeCo: what a kernel path returns when it usually finishes at once and only sometimes ends by calling a
// coroutine (lru_cache_add draining a full pagevec). The common case then costs no coroutine frame: co_await of an
// empty MaybeCo is ready at once; otherwise it awaits the coroutine it holds, exactly as `co_await c` would.
class [[nodiscard]] MaybeCo {
public:
    MaybeCo() = default;
    MaybeCo(Co<> c) // NOLINT(google-explicit-constructor): `return pagevec_lru_add(...);` reads as the kernel's
        : m_co(std::move(c))
        , m_has(true)
    {
    }
    bool await_ready() const noexcept { return !m_has; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) noexcept { return m_co.await_suspend(caller); }
    void await_resume()
    {
        if (m_has)
            m_co.await_resume();
    }

private:
    Co<> m_co;
    bool m_has = false;
};

namespace detail {
    template <typename T>
    Co<T> Promise<T>::get_return_object()
    {
        return Co<T>(std::coroutine_handle<Promise<T>>::from_promise(*this));
    }
    inline Co<void> Promise<void>::get_return_object()
    {
        return Co<void>(std::coroutine_handle<Promise<void>>::from_promise(*this));
    }
} // namespace detail

} // namespace mms
