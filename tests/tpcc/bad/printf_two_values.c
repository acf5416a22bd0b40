// expect: 4:5: error: printf: a TPC printf prints at most one value
void main(tensor x, int a, int b)
{
    printf("%d %d\n", a, b);
}
