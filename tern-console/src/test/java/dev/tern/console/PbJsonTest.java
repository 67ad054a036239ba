package dev.tern.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Label;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Type;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MessageOptions;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Duration;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Empty;
import com.google.protobuf.FieldMask;
import com.google.protobuf.Int64Value;
import com.google.protobuf.ListValue;
import com.google.protobuf.Message;
import com.google.protobuf.NullValue;
import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import dev.tern.testtools.ExternalTool;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The console's binary mapping for gRPC-Web ({@code pbjson.js}), run by Node against protobuf-java:
 * a message with every scalar type at its awkward values (64-bit beyond 2^53, negatives of every
 * signed encoding, unsigned maxima), an enum with a negative value, a packed repeated field, a map
 * with int keys and message values, and every well-known type; the page's encoding of protobuf's
 * own JSON of it must parse to the same message, and its JSON of protobuf-java's bytes must parse
 * to it too.
 */
class PbJsonTest {
  private static FieldDescriptorProto repeated(FieldDescriptorProto field) {
    return field.toBuilder().setLabel(Label.LABEL_REPEATED).build();
  }

  private static final FileDescriptor[] WELL_KNOWN = {
    Timestamp.getDescriptor().getFile(),
    Duration.getDescriptor().getFile(),
    FieldMask.getDescriptor().getFile(),
    Struct.getDescriptor().getFile(),
    Any.getDescriptor().getFile(),
    Empty.getDescriptor().getFile(),
    Int64Value.getDescriptor().getFile(),
  };

  private static FileDescriptorProto file() {
    FileDescriptorProto.Builder file =
        FileDescriptorProto.newBuilder()
            .setName("pbjsontest/all.proto")
            .setPackage("pbjsontest")
            .setSyntax("proto3");
    for (FileDescriptor dependency : WELL_KNOWN) {
      file.addDependency(dependency.getName());
    }
    DescriptorProto.Builder all =
        DescriptorProto.newBuilder()
            .setName("All")
            .addField(PbReaderTest.field("d", 1, Type.TYPE_DOUBLE, null))
            .addField(PbReaderTest.field("f", 2, Type.TYPE_FLOAT, null))
            .addField(PbReaderTest.field("big_signed", 3, Type.TYPE_INT64, null))
            .addField(PbReaderTest.field("u64", 4, Type.TYPE_UINT64, null))
            .addField(PbReaderTest.field("i32", 5, Type.TYPE_INT32, null))
            .addField(PbReaderTest.field("f64", 6, Type.TYPE_FIXED64, null))
            .addField(PbReaderTest.field("f32", 7, Type.TYPE_FIXED32, null))
            .addField(PbReaderTest.field("b", 8, Type.TYPE_BOOL, null))
            .addField(PbReaderTest.field("s", 9, Type.TYPE_STRING, null))
            .addField(PbReaderTest.field("by", 12, Type.TYPE_BYTES, null))
            .addField(PbReaderTest.field("u32", 13, Type.TYPE_UINT32, null))
            .addField(PbReaderTest.field("kind", 14, Type.TYPE_ENUM, ".pbjsontest.Kind"))
            .addField(PbReaderTest.field("sf32", 15, Type.TYPE_SFIXED32, null))
            .addField(PbReaderTest.field("sf64", 16, Type.TYPE_SFIXED64, null))
            .addField(PbReaderTest.field("s32", 17, Type.TYPE_SINT32, null))
            .addField(PbReaderTest.field("s64", 18, Type.TYPE_SINT64, null))
            .addField(PbReaderTest.field("ts", 20, Type.TYPE_MESSAGE, ".google.protobuf.Timestamp"))
            .addField(PbReaderTest.field("dur", 21, Type.TYPE_MESSAGE, ".google.protobuf.Duration"))
            .addField(
                PbReaderTest.field("mask", 22, Type.TYPE_MESSAGE, ".google.protobuf.FieldMask"))
            .addField(PbReaderTest.field("st", 23, Type.TYPE_MESSAGE, ".google.protobuf.Struct"))
            .addField(PbReaderTest.field("val", 24, Type.TYPE_MESSAGE, ".google.protobuf.Value"))
            .addField(PbReaderTest.field("lv", 25, Type.TYPE_MESSAGE, ".google.protobuf.ListValue"))
            .addField(PbReaderTest.field("any", 26, Type.TYPE_MESSAGE, ".google.protobuf.Any"))
            .addField(PbReaderTest.field("empty", 27, Type.TYPE_MESSAGE, ".google.protobuf.Empty"))
            .addField(
                PbReaderTest.field("wrapped", 28, Type.TYPE_MESSAGE, ".google.protobuf.Int64Value"))
            .addField(
                PbReaderTest.field(
                    "wrapped_bytes", 29, Type.TYPE_MESSAGE, ".google.protobuf.BytesValue"))
            .addField(repeated(PbReaderTest.field("nums", 30, Type.TYPE_INT32, null)))
            .addField(
                repeated(
                    PbReaderTest.field(
                        "items", 31, Type.TYPE_MESSAGE, ".pbjsontest.All.ItemsEntry")))
            .addField(repeated(PbReaderTest.field("kinds", 32, Type.TYPE_ENUM, ".pbjsontest.Kind")))
            .addNestedType(
                DescriptorProto.newBuilder()
                    .setName("ItemsEntry")
                    .addField(PbReaderTest.field("key", 1, Type.TYPE_INT32, null))
                    .addField(PbReaderTest.field("value", 2, Type.TYPE_MESSAGE, ".pbjsontest.Item"))
                    .setOptions(MessageOptions.newBuilder().setMapEntry(true)));
    return file.addMessageType(all)
        .addMessageType(
            DescriptorProto.newBuilder()
                .setName("Item")
                .addField(PbReaderTest.field("label", 1, Type.TYPE_STRING, null)))
        .addEnumType(
            EnumDescriptorProto.newBuilder()
                .setName("Kind")
                .addValue(EnumValueDescriptorProto.newBuilder().setName("KIND_ZERO").setNumber(0))
                .addValue(EnumValueDescriptorProto.newBuilder().setName("NEG").setNumber(-1))
                .addValue(EnumValueDescriptorProto.newBuilder().setName("ONE").setNumber(1)))
        .build();
  }

  private static String base64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  @Test
  void encodesAndDecodesEveryKindOfFieldAsProtobufJavaDoes() throws Exception {
    Path node = ExternalTool.require(ExternalTool.NODE);
    FileDescriptorProto proto = file();
    FileDescriptor descriptor = FileDescriptor.buildFrom(proto, WELL_KNOWN);
    Descriptor all = descriptor.findMessageTypeByName("All");
    Descriptor item = descriptor.findMessageTypeByName("Item");
    Descriptor entry = all.findNestedTypeByName("ItemsEntry");
    Message five =
        DynamicMessage.newBuilder(item).setField(item.findFieldByName("label"), "five").build();
    DynamicMessage.Builder value = DynamicMessage.newBuilder(all);
    value
        .setField(all.findFieldByName("d"), -2.5)
        .setField(all.findFieldByName("f"), 1.5f)
        .setField(all.findFieldByName("big_signed"), -9_007_199_254_740_993L)
        .setField(all.findFieldByName("u64"), -1L) // 2^64 - 1
        .setField(all.findFieldByName("i32"), -7)
        .setField(all.findFieldByName("f64"), -6_101_065_172_474_983_726L) // 12345678901234567890
        .setField(all.findFieldByName("f32"), -1) // 2^32 - 1
        .setField(all.findFieldByName("b"), true)
        .setField(all.findFieldByName("s"), "héllo ✓")
        .setField(all.findFieldByName("by"), ByteString.copyFrom(new byte[] {0, (byte) 255, 1}))
        .setField(all.findFieldByName("u32"), -1)
        .setField(
            all.findFieldByName("kind"),
            descriptor.findEnumTypeByName("Kind").findValueByNumber(-1))
        .setField(all.findFieldByName("sf32"), -5)
        .setField(all.findFieldByName("sf64"), Long.MIN_VALUE)
        .setField(all.findFieldByName("s32"), Integer.MIN_VALUE)
        .setField(all.findFieldByName("s64"), -Long.MAX_VALUE)
        .setField(
            all.findFieldByName("ts"),
            Timestamp.newBuilder().setSeconds(1_767_366_245L).setNanos(120_000_000).build())
        .setField(
            all.findFieldByName("dur"),
            Duration.newBuilder().setSeconds(-1).setNanos(-500_000_000).build())
        .setField(
            all.findFieldByName("mask"),
            FieldMask.newBuilder().addPaths("a.b").addPaths("foo_bar").build())
        .setField(
            all.findFieldByName("st"),
            Struct.newBuilder()
                .putFields(
                    "k",
                    Value.newBuilder()
                        .setListValue(
                            ListValue.newBuilder()
                                .addValues(Value.newBuilder().setNumberValue(1.5))
                                .addValues(Value.newBuilder().setNullValue(NullValue.NULL_VALUE))
                                .addValues(Value.newBuilder().setStringValue("x"))
                                .addValues(Value.newBuilder().setBoolValue(true))
                                .addValues(
                                    Value.newBuilder().setStructValue(Struct.getDefaultInstance())))
                        .build())
                .build())
        .setField(all.findFieldByName("val"), Value.newBuilder().setNumberValue(3.25).build())
        .setField(
            all.findFieldByName("lv"),
            ListValue.newBuilder()
                .addValues(Value.newBuilder().setStringValue("a"))
                .addValues(Value.newBuilder().setNumberValue(2))
                .build())
        .setField(all.findFieldByName("any"), Any.pack(five))
        .setField(all.findFieldByName("empty"), Empty.getDefaultInstance())
        .setField(all.findFieldByName("wrapped"), Int64Value.of(-3))
        .setField(
            all.findFieldByName("wrapped_bytes"),
            BytesValue.of(ByteString.copyFrom(new byte[] {1, 2})))
        .addRepeatedField(all.findFieldByName("nums"), 1)
        .addRepeatedField(all.findFieldByName("nums"), -2)
        .addRepeatedField(all.findFieldByName("nums"), 300)
        .addRepeatedField(
            all.findFieldByName("kinds"),
            descriptor.findEnumTypeByName("Kind").findValueByNumber(1))
        .addRepeatedField(
            all.findFieldByName("kinds"),
            descriptor.findEnumTypeByName("Kind").findValueByNumber(-1));
    for (int key : new int[] {5, -1}) {
      value.addRepeatedField(
          all.findFieldByName("items"),
          DynamicMessage.newBuilder(entry)
              .setField(entry.findFieldByName("key"), key)
              .setField(
                  entry.findFieldByName("value"),
                  key == 5 ? five : DynamicMessage.getDefaultInstance(item))
              .build());
    }
    DynamicMessage expected = value.build();
    JsonFormat.TypeRegistry types = JsonFormat.TypeRegistry.newBuilder().add(item).build();
    String json = JsonFormat.printer().usingTypeRegistry(types).print(expected);

    String out = run(node, json, base64(expected.toByteArray()));

    Matcher result =
        Pattern.compile("\\{\"encoded\":\"([^\"]*)\",\"decoded\":(.*)}\n").matcher(out);
    assertThat(result.matches()).as(out).isTrue();
    // What the page sends over gRPC-Web for protobuf's own JSON: the same message.
    assertThat(DynamicMessage.parseFrom(all, Base64.getDecoder().decode(result.group(1))))
        .isEqualTo(expected);
    // What the page shows for protobuf-java's bytes: JSON that protobuf reads back to it.
    DynamicMessage.Builder decoded = DynamicMessage.newBuilder(all);
    JsonFormat.parser().usingTypeRegistry(types).merge(result.group(2), decoded);
    assertThat(decoded.build()).isEqualTo(expected);
    assertThat(result.group(2))
        .contains(
            "\"ts\":\"2026-01-02T15:04:05.120Z\"",
            "\"dur\":\"-1.500s\"",
            "\"mask\":\"a.b,fooBar\"",
            "\"bigSigned\":\"-9007199254740993\"",
            "\"items\":{\"5\":{\"label\":\"five\"},\"-1\":{}}");
  }

  @Test
  void aValueThatCannotBeEncoded_failsNamingTheField() throws Exception {
    Path node = ExternalTool.require(ExternalTool.NODE);

    assertThat(run(node, "{\"nope\": 1}", ""))
        .isEqualTo("{\"error\":\"pbjsontest.All has no field nope\"}\n");
    assertThat(run(node, "{\"ts\": \"yesterday\"}", ""))
        .isEqualTo(
            "{\"error\":\"pbjsontest.All.ts: Timestamp: not RFC 3339, as 2026-01-02T15:04:05Z:"
                + " yesterday\"}\n");
    assertThat(run(node, "{\"kind\": \"TWO\"}", ""))
        .isEqualTo("{\"error\":\"pbjsontest.All.kind: TWO is no value of pbjsontest.Kind\"}\n");
    assertThat(run(node, "{\"i32\": 1.5}", ""))
        .isEqualTo("{\"error\":\"pbjsontest.All.i32: not an integer: 1.5\"}\n");
    assertThat(run(node, "{\"items\": {\"5\": {\"size\": 1}}}", ""))
        .isEqualTo("{\"error\":\"pbjsontest.All.items: pbjsontest.Item has no field size\"}\n");
  }

  /** Runs the script on {@code json} and {@code value} (base64) as pbjsontest.All; its output. */
  private static String run(Path node, String json, String value) throws Exception {
    List<String> args = new ArrayList<>();
    args.addAll(List.of("pbjsontest.All", json, value, base64(file().toByteArray())));
    for (FileDescriptor wellKnown : WELL_KNOWN) {
      args.add(base64(wellKnown.toProto().toByteArray()));
    }
    String out = NodeScript.run(node, "check-pbjson.mjs", args);
    return out;
  }
}
