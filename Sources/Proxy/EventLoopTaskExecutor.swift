import NIOCore

/// Runs a connection's Swift tasks on that connection's event loop. Writes to the channel then
/// happen in place, and an upstream completion wakes one thread (the loop) instead of handing
/// the task from the curl thread to the concurrency pool and from there to the loop.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: EventLoop

    init(_ loop: EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
