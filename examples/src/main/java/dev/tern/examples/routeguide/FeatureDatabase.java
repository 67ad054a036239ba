package dev.tern.examples.routeguide;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The route guide's known features, read from {@code route_guide_db.json} ({@code {"feature":
 * [{"name": ..., "location": {"latitude": ..., "longitude": ...}}, ...]}}, a {@link FeatureList} in
 * the proto3 JSON mapping), read with protobuf's own JSON support ({@code JsonFormat}, from
 * protobuf-java-util). Immutable once loaded; thread-safe. Public for the blocking example ({@code
 * dev.tern.examples.blocking}).
 */
public final class FeatureDatabase {
  private final List<Feature> features;

  private FeatureDatabase(List<Feature> features) {
    this.features = List.copyOf(features);
  }

  /** Loads the database shipped with the example. */
  public static FeatureDatabase load() {
    try (InputStream in = FeatureDatabase.class.getResourceAsStream("route_guide_db.json")) {
      if (in == null) {
        throw new IllegalStateException("route_guide_db.json is missing from the class path");
      }
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Parses a database from JSON text: a {@link FeatureList} in the proto3 JSON mapping.
   *
   * @throws IllegalArgumentException if the text is not such a list
   */
  static FeatureDatabase parse(String json) {
    FeatureList.Builder list = FeatureList.newBuilder();
    try {
      JsonFormat.parser().merge(json, list);
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      throw new IllegalArgumentException("json: " + e.getMessage(), e);
    }
    return new FeatureDatabase(list.getFeatureList());
  }

  /** Every feature, in file order. */
  public List<Feature> features() {
    return features;
  }

  /** The feature at {@code point}, or a feature with an empty name there if none is known. */
  public Feature featureAt(Point point) {
    for (Feature feature : features) {
      if (feature.getLocation().equals(point)) {
        return feature;
      }
    }
    return Feature.newBuilder().setLocation(point).build();
  }
}
