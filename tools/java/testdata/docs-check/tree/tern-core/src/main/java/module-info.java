module dev.tern.core {
  exports dev.tern;
}
