package dev.tern.internal.lb;

/**
 * The parsed configuration of {@code least_request}.
 *
 * @param choiceCount how many random endpoints each pick compares, 2..10
 */
record LeastRequestConfig(int choiceCount) {}
