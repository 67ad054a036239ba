package dev.tern.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Label;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Type;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MessageOptions;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.OneofDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.DescriptorProtos.SourceCodeInfo;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.rpc.BadRequest;
import dev.tern.testtools.ExternalTool;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The console's hand-written protobuf reader ({@code pb.js}), run by Node on bytes protobuf-java
 * wrote: a FileDescriptorProto with nested messages, a map entry, a oneof, a proto3 optional, an
 * enum with a negative value, streaming flags and comments; a message value with packed sint64s and
 * an enum; and a google.rpc.BadRequest decoded by the page's own description of it.
 */
class PbReaderTest {
  static FieldDescriptorProto field(String name, int number, Type type, String typeName) {
    FieldDescriptorProto.Builder field =
        FieldDescriptorProto.newBuilder()
            .setName(name)
            .setNumber(number)
            .setType(type)
            .setLabel(Label.LABEL_OPTIONAL);
    if (typeName != null) {
      field.setTypeName(typeName);
    }
    return field.build();
  }

  private static SourceCodeInfo.Location comment(String text, boolean leading, int... path) {
    SourceCodeInfo.Location.Builder location = SourceCodeInfo.Location.newBuilder();
    for (int p : path) {
      location.addPath(p);
    }
    return (leading ? location.setLeadingComments(text) : location.setTrailingComments(text))
        .build();
  }

  private static FileDescriptorProto file() {
    DescriptorProto inner =
        DescriptorProto.newBuilder()
            .setName("Inner")
            .addField(
                field("values", 1, Type.TYPE_SINT64, null).toBuilder()
                    .setLabel(Label.LABEL_REPEATED))
            .addField(field("kind", 2, Type.TYPE_ENUM, ".t.Kind"))
            .build();
    DescriptorProto entry =
        DescriptorProto.newBuilder()
            .setName("CountsEntry")
            .setOptions(MessageOptions.newBuilder().setMapEntry(true))
            .addField(field("key", 1, Type.TYPE_STRING, null))
            .addField(field("value", 2, Type.TYPE_INT64, null))
            .build();
    DescriptorProto outer =
        DescriptorProto.newBuilder()
            .setName("Outer")
            .addField(field("user_name", 1, Type.TYPE_STRING, null))
            .addField(
                field("counts", 2, Type.TYPE_MESSAGE, ".t.Outer.CountsEntry").toBuilder()
                    .setLabel(Label.LABEL_REPEATED))
            .addField(
                field("inner", 3, Type.TYPE_MESSAGE, ".t.Outer.Inner").toBuilder().setOneofIndex(0))
            .addField(field("kind", 4, Type.TYPE_ENUM, ".t.Kind").toBuilder().setOneofIndex(0))
            .addField(
                field("maybe", 5, Type.TYPE_INT32, null).toBuilder()
                    .setOneofIndex(1)
                    .setProto3Optional(true))
            .addOneofDecl(OneofDescriptorProto.newBuilder().setName("choice"))
            .addOneofDecl(OneofDescriptorProto.newBuilder().setName("_maybe"))
            .addNestedType(inner)
            .addNestedType(entry)
            .build();
    return FileDescriptorProto.newBuilder()
        .setName("t/test.proto")
        .setPackage("t")
        .setSyntax("proto3")
        .addMessageType(outer)
        .addEnumType(
            EnumDescriptorProto.newBuilder()
                .setName("Kind")
                .addValue(EnumValueDescriptorProto.newBuilder().setName("KIND_UNSPECIFIED"))
                .addValue(EnumValueDescriptorProto.newBuilder().setName("NEG").setNumber(-1)))
        .addService(
            ServiceDescriptorProto.newBuilder()
                .setName("Svc")
                .addMethod(
                    MethodDescriptorProto.newBuilder()
                        .setName("Unary")
                        .setInputType(".t.Outer")
                        .setOutputType(".t.Outer.Inner"))
                .addMethod(
                    MethodDescriptorProto.newBuilder()
                        .setName("Both")
                        .setInputType(".t.Outer")
                        .setOutputType(".t.Outer")
                        .setClientStreaming(true)
                        .setServerStreaming(true)))
        .setSourceCodeInfo(
            SourceCodeInfo.newBuilder()
                .addLocation(comment(" An outer message.\n", true, 4, 0))
                .addLocation(comment(" who\n", false, 4, 0, 2, 0))
                .addLocation(comment(" Kinds.\n", true, 5, 0))
                .addLocation(comment(" Both ways.\n", true, 6, 0, 2, 1)))
        .build();
  }

  @Test
  void decodesWhatProtobufJavaWrote() throws Exception {
    Path node = ExternalTool.require(ExternalTool.NODE);
    FileDescriptorProto proto = file();
    FileDescriptor descriptor = FileDescriptor.buildFrom(proto, new FileDescriptor[0]);
    Descriptor inner = descriptor.findMessageTypeByName("Outer").findNestedTypeByName("Inner");
    DynamicMessage value =
        DynamicMessage.newBuilder(inner)
            .addRepeatedField(inner.findFieldByName("values"), -3L)
            .addRepeatedField(inner.findFieldByName("values"), 5_000_000_000L)
            .setField(
                inner.findFieldByName("kind"),
                descriptor.findEnumTypeByName("Kind").findValueByNumber(-1))
            .build();
    BadRequest detail =
        BadRequest.newBuilder()
            .addFieldViolations(
                BadRequest.FieldViolation.newBuilder().setField("latitude").setDescription("ü"))
            .build();

    String out =
        NodeScript.run(
            node,
            "check-pb.mjs",
            List.of(
                base64(proto.toByteArray()),
                base64(value.toByteArray()),
                "t.Outer.Inner",
                base64(detail.toByteArray())));

    assertThat(out)
        .isEqualTo(
            String.join(
                    "",
                    List.of(
                        "{\"name\":\"t/test.proto\",\"pkg\":\"t\",\"dependencies\":[],",
                        "\"services\":[{\"service\":\"t.Svc\",\"comment\":\"\",\"methods\":[",
                        "[\"t.Svc/Unary\",\"unary\",\"t.Outer\",\"t.Outer.Inner\",\"\"],",
                        "[\"t.Svc/Both\",\"bidi streaming\",\"t.Outer\",\"t.Outer\",",
                        "\"Both ways.\"]]}],",
                        "\"types\":[{\"message\":\"t.Outer\",\"comment\":\"An outer message.\",",
                        "\"mapEntry\":false,\"oneofs\":[\"choice\",\"_maybe\"],\"fields\":[",
                        "[1,\"userName\",9,\"\",false,-1,false,\"who\"],",
                        "[2,\"counts\",11,\"t.Outer.CountsEntry\",true,-1,false,\"\"],",
                        "[3,\"inner\",11,\"t.Outer.Inner\",false,0,false,\"\"],",
                        "[4,\"kind\",14,\"t.Kind\",false,0,false,\"\"],",
                        "[5,\"maybe\",5,\"\",false,1,true,\"\"]]},",
                        "{\"message\":\"t.Outer.Inner\",\"comment\":\"\",\"mapEntry\":false,",
                        "\"oneofs\":[],\"fields\":[[1,\"values\",18,\"\",true,-1,false,\"\"],",
                        "[2,\"kind\",14,\"t.Kind\",false,-1,false,\"\"]]},",
                        "{\"message\":\"t.Outer.CountsEntry\",\"comment\":\"\",\"mapEntry\":true,",
                        "\"oneofs\":[],\"fields\":[[1,\"key\",9,\"\",false,-1,false,\"\"],",
                        "[2,\"value\",3,\"\",false,-1,false,\"\"]]},",
                        "{\"enum\":\"t.Kind\",\"comment\":\"Kinds.\",\"values\":[",
                        "{\"name\":\"KIND_UNSPECIFIED\",\"number\":0},",
                        "{\"name\":\"NEG\",\"number\":-1}]}],",
                        "\"value\":{\"values\":[\"-3\",\"5000000000\"],\"kind\":\"NEG\"},",
                        "\"detail\":{\"fieldViolations\":[{\"field\":\"latitude\",",
                        "\"description\":\"ü\"}]}}\n"))
                .toString());
  }

  private static String base64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }
}
