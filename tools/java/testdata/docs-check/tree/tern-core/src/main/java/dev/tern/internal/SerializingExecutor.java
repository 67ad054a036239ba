package dev.tern.internal;

public final class SerializingExecutor {}
