/**
 * Tern's built-in load-balancing policies: {@code pick_first} (gRFC A62, with A61's happy
 * eyeballs), {@code round_robin} and {@code least_request} (gRFC A48). Each runs only in its
 * channel's synchronization context; their pickers are lock-free and thread-safe.
 */
package dev.tern.internal.lb;
