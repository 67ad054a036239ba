/**
 * The reliability harness: Tern and grpc-java (the reference) through the same workloads, faults,
 * restarts, overloads and soaks, each run reported as a markdown table. Not shipped.
 *
 * <pre>
 * programs (bin/...)     ChaosReport (chaos-report), RollingRestartReport (rolling-restart),
 *                        OverloadReport (overload), SoakReport (soak)
 * runs                   ChaosRun (servers behind Toxiproxy, one Fault at a time, FaultResult),
 *                        RollingRestartRun, OverloadRun, SoakRun
 * peers                  Peer: TernPeer, GrpcJavaPeer (the same calls, line by line);
 *                        ChaosService, what every server serves
 * load                   Workload (mixed calls, one at a time per worker: CallKind, Outcome),
 *                        PacedLoad (the soak's, paced and counted), WorkLoad (open and closed
 *                        loads of the overload runs, of an OverloadWorkload's calls), CallTally
 *                        (one overload step's results)
 * processes              SoakServer / SoakServerMain (the server in a child JVM),
 *                        ResourceSample (heap, RSS, threads, fds), Growth (a trend over samples),
 *                        CpuPinning (taskset)
 * </pre>
 *
 * <p>Threads: each program's main thread drives its runs one after another. A run's load comes from
 * worker threads of its own (one call at a time each) or, for the open loads, from a scheduler that
 * starts calls on a clock; call ends arrive on the peer's client threads and are counted in
 * thread-safe tallies. A peer's servers are started and stopped by one thread; its client is
 * thread-safe. The soak's server runs in a child JVM and is sampled through its standard input and
 * output.
 */
package dev.tern.reliability;
