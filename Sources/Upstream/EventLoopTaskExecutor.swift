import NIOCore

/// Runs a connection's Swift tasks on that connection's event loop. Writes to the channel then
/// happen in place, an upstream completion wakes one thread (the loop) instead of handing the task
/// from the curl thread to the concurrency pool and from there to the loop, and a pool kept busy by
/// other work in the process (two threads on two cores) cannot hold the connection's answers back.
/// The proxy's client connections and the replay origin's connections run on one each.
public final class EventLoopTaskExecutor: TaskExecutor {
    public let loop: EventLoop

    public init(_ loop: EventLoop) {
        self.loop = loop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
