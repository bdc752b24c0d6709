/* 64 rows x 2 KiB (L2-resident) read one line a row a visit, four lines a visit, and one line with
   the rows' four 16-row groups skewed over four L1 sets, with rows 4 KiB or 16 KiB apart (all in one
   L1 set, as the 64^4 perm's rows 1 MiB apart) or 64-128 B more; thread CPU time, GB/s (issue #43;
   bench/design-notes.md). Build: gcc -O3 -march=x86-64-v4 -o l2reads perm3210-l2reads.c */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static __m512i acc;
/* rows rows at spacing sp, each `len` bytes; read one line from each row in turn (g lines per visit) */
static void rds(char*p,long sp,int rows,long len,int g){__m512i a=acc;for(long o=0;o<len;o+=64*g)for(int i=0;i<rows;i++)for(int k=0;k<g;k++)a=_mm512_add_epi32(a,_mm512_load_si512(p+i*sp+o+64*k));acc=a;}
/* skew: row i starts its line order at (i/16)*64 offset rotated within 256 bytes */
static void rdk(char*p,long sp,int rows,long len){__m512i a=acc;for(long o=0;o<len;o+=256)for(int c=0;c<4;c++)for(int i=0;i<rows;i++){long q=o+((c+i/16)&3)*64;a=_mm512_add_epi32(a,_mm512_load_si512(p+i*sp+q));}acc=a;}
int main(){
  char*b=aligned_alloc(4096,64L<<20); memset(b,1,64L<<20);
  long sps[]={4096,4096+64,4096+128,16384,16384+64};
  for(int k=0;k<5;k++){long sp=sps[k]; long len=2048; /* 64 rows x 2 KiB = 128 KiB: L2 resident */
    double t[4]={0}; int R=2000;
    for(int w=0;w<2;w++){ double t0=now(); for(int r=0;r<R;r++)rds(b,sp,64,len,1); double t1=now(); for(int r=0;r<R;r++)rds(b,sp,64,len,4); double t2=now(); for(int r=0;r<R;r++)rdk(b,sp,64,len); double t3=now(); t[0]=t1-t0;t[1]=t2-t1;t[2]=t3-t2;}
    double by=64.0*len*R;
    printf("row spacing %6ld: 1 line/visit %.1f GB/s, 4 lines/visit %.1f, skewed 1 line %.1f\n",sp,by/t[0]/1e9,by/t[1]/1e9,by/t[2]/1e9);}
  return _mm512_reduce_add_epi32(acc)==42;
}
