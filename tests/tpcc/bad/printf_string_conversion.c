// expect: 4:5: error: printf: conversion '%s' is not supported by TPC printf
void main(tensor x, int a)
{
    printf("%s\n", "text");
}
