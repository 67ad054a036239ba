package dev.tern.internal.lb;

/**
 * The parsed configuration of {@code pick_first}: {@code {"shuffleAddressList": true}} shuffles the
 * resolver's addresses before each pass, so clients spread over servers (gRFC A62).
 *
 * @param shuffleAddressList whether to shuffle
 */
record PickFirstConfig(boolean shuffleAddressList) {}
