package dev.tern.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * {@link VarHandle}s on a class's own fields, for the classes that update a field atomically in
 * place of an atomic object per instance. Called from static initialisers.
 */
public final class FieldHandles {
  private FieldHandles() {}

  /**
   * The handle of the field {@code name} of type {@code type} in {@code lookup}'s class; pass
   * {@code MethodHandles.lookup()}, so that private fields are reachable.
   *
   * @throws IllegalStateException if there is no such field (a bug: the class fails to initialise)
   */
  public static VarHandle of(MethodHandles.Lookup lookup, String name, Class<?> type) {
    try {
      return lookup.findVarHandle(lookup.lookupClass(), name, type);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("no field " + name + " in " + lookup.lookupClass(), e);
    }
  }
}
